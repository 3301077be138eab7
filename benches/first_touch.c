/* The machine's cost of fresh memory, which every exploration pays for its visited index.
   Maps SIZE_MIB of anonymous memory (huge pages advised), writes a byte a page, unmaps it,
   three times. On a virtual machine the first round often costs far more than the others:
   the host gives memory to the guest page by page on first touch, and takes back what the
   guest frees after a while. Both hsg and the C search of ../shared/bench pay that cost.
   Build: gcc -O2 -o first_touch first_touch.c. Prints one line a round. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 1024;
    size_t bytes = mib << 20;
    for (int round = 1; round <= 3; round++) {
        double t0 = now();
        char *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        madvise(p, bytes, MADV_HUGEPAGE);
        for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
        double secs = now() - t0;
        munmap(p, bytes);
        printf("round %d: %zu MiB touched in %.3f s (%.3f s a GiB)\n", round, mib, secs,
               secs * 1024.0 / (double)mib);
    }
    return 0;
}
