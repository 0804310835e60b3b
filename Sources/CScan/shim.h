// Byte classification for the line-protocol scanner, 16 bytes per SSE2 compare (x86-64's baseline)
// with a byte loop elsewhere. A header of `static inline` functions, as CEpoll's: Swift's Clang
// importer compiles them into the calling module, where they are inlined.
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// Where the separators are among the first `n` (at most 64) bytes at `p`: bit k of each mask is set
/// when byte k is a comma, an equals sign, a space or a backslash. Reads only `p[0..<n]`.
static inline void sextant_separator_masks(const uint8_t *p, size_t n, uint64_t *comma, uint64_t *equals,
                                           uint64_t *space, uint64_t *backslash) {
    uint64_t c = 0, e = 0, s = 0, b = 0;
    size_t i = 0;
    if (n > 64) n = 64;
#if defined(__SSE2__)
    const __m128i vc = _mm_set1_epi8(','), ve = _mm_set1_epi8('='), vs = _mm_set1_epi8(' '),
                  vb = _mm_set1_epi8('\\');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        c |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vc)) << i;
        e |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, ve)) << i;
        s |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vs)) << i;
        b |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)) << i;
    }
#endif
    for (; i < n; i++) {
        uint8_t x = p[i];
        c |= (uint64_t)(x == ',') << i;
        e |= (uint64_t)(x == '=') << i;
        s |= (uint64_t)(x == ' ') << i;
        b |= (uint64_t)(x == '\\') << i;
    }
    *comma = c;
    *equals = e;
    *space = s;
    *backslash = b;
}

/// A ranging line of the usual shape, as found by `sextant_scan_ranging`: byte offsets of the tag
/// values in the line (`tech_end` 0: no `tech` tag), the numbers (`has_…` 0: the field is absent) and
/// the timestamp (Unix ns).
typedef struct {
    int32_t site_start, site_end, anchor_start, anchor_end, tag_start, tag_end, tech_start, tech_end;
    double distance, std, azimuth, elevation;
    int32_t has_std, has_azimuth, has_elevation;
    int64_t time;
} sextant_ranging_line;

/// Exact powers of ten, for the plain decimals below.
static const double sextant_pow10[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
                                         1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/// The usual number at `p[*i]`, `-?d*(.d*)?` with 1 to 15 digits and no exponent, ended by a comma, a
/// space or `end`: 1 with the value (and `*i` after it), else 0 with nothing changed. The value is an
/// integer below 10^15, exact in a double, divided by an exact power of ten, so it is the correctly
/// rounded one, as `NumberParsing.double` gives. The one implementation: the Swift scanner's
/// `plainDecimal` calls it.
__attribute__((always_inline)) static inline int sextant_plain_decimal(const uint8_t *p, size_t *i, size_t end, double *out) {
    size_t j = *i;
    if (j >= end) return 0;
    int negative = p[j] == '-';
    if (negative) j++;
    uint64_t m = 0;
    size_t first = j;
    while (j < end && (uint8_t)(p[j] - '0') < 10) { m = m * 10 + (uint64_t)(p[j] - '0'); j++; }
    size_t digits = j - first, decimals = 0;
    if (j < end && p[j] == '.') {
        j++;
        size_t fraction = j;
        while (j < end && (uint8_t)(p[j] - '0') < 10) { m = m * 10 + (uint64_t)(p[j] - '0'); j++; }
        decimals = j - fraction;
        digits += decimals;
    }
    if (digits == 0 || digits > 15 || !(j == end || p[j] == ',' || p[j] == ' ')) return 0;
    *i = j;
    if (m == 0) { *out = negative ? -0.0 : 0.0; return 1; }
    double v = (double)(int64_t)m / sextant_pow10[decimals];
    *out = negative ? -v : v;
    return 1;
}

/// The value of eight ASCII digits loaded little-endian into `w` (the first digit in the low byte):
/// 1 with the value, or 0 when any byte is not a digit. Pairs, then quads, then the eight are combined
/// by multiplications (simdjson's `parse_eight_digits_unrolled`).
__attribute__((always_inline)) static inline int sextant_eight_digits(uint64_t w, uint64_t *out) {
    const uint64_t highs = 0xF0F0F0F0F0F0F0F0ULL, zeros = 0x3030303030303030ULL;
    if ((w & highs) != zeros || ((w + 0x0606060606060606ULL) & highs) != zeros) return 0;
    uint64_t v = ((w & 0x0F0F0F0F0F0F0F0FULL) * 2561) >> 8;
    v = ((v & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
    *out = ((v & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
    return 1;
}

/// The digits of a timestamp at `p[*i]`, at most 19 (so the value fits in 64 bits), eight per step
/// while eight remain within `end` (16 at most that way), then one at a time: their value, with `*i`
/// after the last digit read (`*i` unchanged and 0 when there is none). The caller checks what follows
/// and that the value fits in int64. The one implementation: the Swift scanner and the ranging fast
/// path call it.
__attribute__((always_inline)) static inline uint64_t sextant_timestamp_digits(const uint8_t *p, size_t *i, size_t end) {
    size_t j = *i, start = j;
    uint64_t t = 0, w, eight;
    while (j + 8 <= end && j - start <= 11) {
        __builtin_memcpy(&w, p + j, 8);   // little-endian, as x86-64 reads it
        if (!sextant_eight_digits(w, &eight)) break;
        t = t * 100000000 + eight;
        j += 8;
    }
    while (j < end && j - start < 19 && (uint8_t)(p[j] - '0') < 10) { t = t * 10 + (uint64_t)(p[j] - '0'); j++; }
    *i = j;
    return t;
}

/// The ranging line that gateways send, found in one pass:
/// `ranging,site=S,anchor=A,tag=T[,tech=X] distance=D[,std=E][,azimuth=AZ][,elevation=EL] TIME` (the
/// tags in any order, the fields too, a trailing `\n` or `\r\n` allowed), with no escape, no other tag or field, no
/// repeated one, single spaces, plain decimals and a timestamp of at most 19 digits within int64.
/// The measurement and tags must end within the first 64 bytes. Returns 1 and fills `r` for such a
/// line; 0 for any other line, which the general scanner then reads (and refuses with its reason when
/// it is wrong). Only syntax is checked here: values (a negative distance, an unknown technology) are
/// the caller's to check. Reads only `p[0..<n]`.
static inline int sextant_scan_ranging(const uint8_t *p, size_t n, sextant_ranging_line *r) {
    if (n > 0 && p[n - 1] == '\n') n--;
    if (n > 0 && p[n - 1] == '\r') n--;
    if (n < 8) return 0;
    uint64_t w;
    __builtin_memcpy(&w, p, 8);
    if (w != 0x2C676E69676E6172ULL) return 0;   // "ranging," read as a little-endian word
    uint64_t comma, equals, space, backslash;
    sextant_separator_masks(p, n < 64 ? n : 64, &comma, &equals, &space, &backslash);
    if (space == 0) return 0;
    unsigned key_end = (unsigned)__builtin_ctzll(space);
    uint64_t before = (1ULL << key_end) - 1;
    if (backslash & before) return 0;
    uint64_t rest = comma & before, eqs = equals & before;
    unsigned seen = 0;
    r->tech_start = r->tech_end = 0;
    while (rest) {
        unsigned c = (unsigned)__builtin_ctzll(rest);
        rest &= rest - 1;
        unsigned stop = rest ? (unsigned)__builtin_ctzll(rest) : key_end;
        // Exactly one `=` between this comma and the next separator, with text on both sides.
        uint64_t seg = eqs & ((1ULL << stop) - 1) & ~((2ULL << c) - 1);
        if (seg == 0 || (seg & (seg - 1)) != 0) return 0;
        unsigned q = (unsigned)__builtin_ctzll(seg);
        if (q == c + 1 || stop == q + 1) return 0;
        const uint8_t *k = p + c + 1;
        unsigned length = q - c - 1, bit;
        int32_t *span;
        if (length == 4 && __builtin_memcmp(k, "site", 4) == 0) { bit = 1; span = &r->site_start; }
        else if (length == 6 && __builtin_memcmp(k, "anchor", 6) == 0) { bit = 2; span = &r->anchor_start; }
        else if (length == 3 && __builtin_memcmp(k, "tag", 3) == 0) { bit = 4; span = &r->tag_start; }
        else if (length == 4 && __builtin_memcmp(k, "tech", 4) == 0) { bit = 8; span = &r->tech_start; }
        else return 0;
        if (seen & bit) return 0;
        seen |= bit;
        span[0] = (int32_t)(q + 1);
        span[1] = (int32_t)stop;
    }
    if ((seen & 7) != 7) return 0;
    size_t i = (size_t)key_end + 1;
    unsigned fields = 0;
    for (;;) {
        unsigned bit;
        size_t name;
        double *value;
        if (n - i > 9 && __builtin_memcmp(p + i, "distance=", 9) == 0) { bit = 1; name = 9; value = &r->distance; }
        else if (n - i > 4 && __builtin_memcmp(p + i, "std=", 4) == 0) { bit = 2; name = 4; value = &r->std; }
        else if (n - i > 8 && __builtin_memcmp(p + i, "azimuth=", 8) == 0) { bit = 4; name = 8; value = &r->azimuth; }
        else if (n - i > 10 && __builtin_memcmp(p + i, "elevation=", 10) == 0) { bit = 8; name = 10; value = &r->elevation; }
        else return 0;
        if (fields & bit) return 0;
        fields |= bit;
        i += name;
        if (!sextant_plain_decimal(p, &i, n, value)) return 0;
        if (i < n && p[i] == ',') { i++; continue; }
        break;
    }
    if (!(fields & 1) || i >= n || p[i] != ' ') return 0;
    i++;
    size_t start = i;
    uint64_t t = sextant_timestamp_digits(p, &i, n);
    if (i == start || i != n || t > (uint64_t)INT64_MAX) return 0;
    r->has_std = (fields & 2) != 0;
    r->has_azimuth = (fields & 4) != 0;
    r->has_elevation = (fields & 8) != 0;
    r->time = (int64_t)t;
    return 1;
}
