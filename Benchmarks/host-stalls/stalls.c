/* host-stalls: how often this machine stops a running thread, and for how long.
 *
 * One thread reads CLOCK_MONOTONIC in a tight loop for the given seconds; every gap between two reads
 * longer than 0.5 ms is time the thread was not running although it never blocked: an interrupt, another
 * task of this machine, or (on a virtual machine) the host running something else on this vCPU. Run it
 * on an otherwise idle machine and the gaps are the host's. Also prints the kernel's "steal" time
 * (/proc/stat) over the same seconds, which a virtual machine's host reports when it supports it.
 *
 * Prints one line: gaps over 1, 5 and 10 ms, the longest, and the share of the time lost in gaps. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The "steal" column of /proc/stat's "cpu" line, in clock ticks, or -1. */
static long long steal_ticks(void) {
	FILE *f = fopen("/proc/stat", "r");
	long long v[8] = {0};
	if (!f) return -1;
	int n = fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 ? v[7] : -1;
}

int main(int argc, char **argv) {
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	if (!(seconds > 0 && seconds <= 600)) {
		fprintf(stderr, "usage: stalls [SECONDS]   (0 < SECONDS <= 600, default 5)\n");
		return 64;
	}
	long long steal0 = steal_ticks();
	double t0 = now(), prev = t0, lost = 0, longest = 0;
	long over1 = 0, over5 = 0, over10 = 0;
	for (;;) {
		double t = now(), gap = t - prev;
		prev = t;
		if (gap > 0.0005) {
			lost += gap;
			if (gap > 0.001) over1++;
			if (gap > 0.005) over5++;
			if (gap > 0.010) over10++;
			if (gap > longest) longest = gap;
		}
		if (t - t0 >= seconds) break;
	}
	long long steal1 = steal_ticks();
	double elapsed = now() - t0;
	printf("host stalls in %.1f s of one spinning thread: %ld over 1 ms, %ld over 5 ms, %ld over 10 ms (%.1f per second), "
	       "longest %.1f ms; %.1f %% of the time lost in gaps",
	       elapsed, over1, over5, over10, over10 / elapsed, longest * 1e3, 100 * lost / elapsed);
	if (steal0 >= 0 && steal1 >= 0)
		printf("; kernel steal time %.2f s of %ld vCPUs' %.1f s", (steal1 - steal0) / (double)sysconf(_SC_CLK_TCK),
		       sysconf(_SC_NPROCESSORS_ONLN), elapsed * sysconf(_SC_NPROCESSORS_ONLN));
	printf("\n");
	return 0;
}
