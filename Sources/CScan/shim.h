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
