/* The program recorded for perfscope's diff test: three CPU-bound phases of equal work per
 * round. Built twice: `base` as is, `slow` with -DSLOW=3, which makes compute_hash() do three
 * times the work. Each phase loops in its own function (noinline, noipa: not merged across
 * rounds) so the time is its self time, and ends by calling consume(), which makes it a non-leaf
 * function: gcc 12 sets up no frame pointer in leaf functions even with
 * -fno-omit-frame-pointer, and main() would be missing from every stack. */
#include <stdint.h>
#include <stdio.h>

#ifndef SLOW
#define SLOW 1
#endif
#define ROUNDS 20
#define N 2000000ULL

volatile uint64_t sink;

__attribute__((noinline, noipa)) void consume(uint64_t x) {
    sink += x;
}

__attribute__((noinline, noipa)) void parse_input(uint64_t n) {
    uint64_t x = 1;
    for (uint64_t i = 0; i < n; i++) x = x * 6364136223846793005ULL + i;
    consume(x);
}

__attribute__((noinline, noipa)) void compute_hash(uint64_t n) {
    uint64_t x = 2;
    for (uint64_t i = 0; i < n * SLOW; i++) x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL + i;
    consume(x);
}

__attribute__((noinline, noipa)) void write_output(uint64_t n) {
    uint64_t x = 3;
    for (uint64_t i = 0; i < n; i++) x = x * 2862933555777941757ULL + 3037000493ULL + i;
    consume(x);
}

int main(void) {
    for (int r = 0; r < ROUNDS; r++) {
        parse_input(N);
        compute_hash(N);
        write_output(N);
    }
    printf("%llu\n", (unsigned long long)sink);
    return 0;
}
