/*
 * What a queue without a shared lock could do on this machine: a single-producer single-consumer ring
 * between two processes that writes the same cell lines as a queue send (PROTOCOL.md 15.2) and makes the
 * same owner-word compare-and-sets on 64 pool slots packed 8 to a cache line (acquire, send, claim, free),
 * but takes no mutex and bumps no futex word (each side publishes its position with an exchange, the full
 * fence a wake-up check would need, and reads a waiter word). Spins only: a floor, not a protocol.
 *   tp: one-way messages per second (the producer acquires, writes a slot, sends; the consumer receives,
 *       checks, frees), the last three quarters of the messages;
 *   rt: round trips of one slot through two rings, p50 and p99 of the last three quarters.
 * Build and run: cc -O2 -o ring_floor ring_floor.c && ./ring_floor tp 4000000 && ./ring_floor rt 300000
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CAP 64
#define SLOTS 64
#define IN_QUEUE (1ull << 63)

typedef struct {
    _Alignas(64) uint64_t head;
    uint32_t consumer_waiting;
    _Alignas(64) uint64_t tail;
    uint32_t producer_waiting;
    _Alignas(64) unsigned char cells[CAP][512];
} ring_t;

typedef struct {
    _Alignas(64) uint64_t owner[SLOTS];
    _Alignas(64) double data[SLOTS][128];
} pool_t;

static const char handle[] = "shm://sharedarrays-pool-0123456789abcdef";

static long now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int cas(uint64_t *w, uint64_t from, uint64_t to) {
    return __atomic_compare_exchange_n(w, &from, to, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static int next_slot;

static int acquire(pool_t *p, uint64_t me) {
    for (;;) {
        for (int k = 0; k < SLOTS; k++) {
            int i = (next_slot + k) % SLOTS;
            if (__atomic_load_n(&p->owner[i], __ATOMIC_ACQUIRE) == 0 && cas(&p->owner[i], 0, me)) {
                next_slot = i + 1;
                return i;
            }
        }
        __builtin_ia32_pause();
    }
}

static void send(ring_t *r, pool_t *p, int slot, uint64_t me) {
    uint64_t t = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    while (t - __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) >= CAP) {
        __builtin_ia32_pause();
    }
    unsigned char *c = r->cells[t % CAP];
    uint64_t body[21] = {0}; /* kind, ndim, id, index, dtype, handle length, shape, strides, sender: bytes 8..175 */
    body[0] = 1 | 4ull << 32;
    body[1] = 42;
    body[2] = (uint64_t) slot;
    body[3] = 7 | (uint64_t) sizeof handle << 32;
    body[4] = 1;
    body[20] = me;
    memcpy(c + 8, body, sizeof body);
    memcpy(c + 192, handle, sizeof handle);
    if (!cas(&p->owner[slot], me, IN_QUEUE | t)) {
        abort();
    }
    __atomic_store_n((uint64_t *) c, t, __ATOMIC_RELEASE);
    __atomic_exchange_n(&r->tail, t + 1, __ATOMIC_SEQ_CST);
    (void) __atomic_load_n(&r->consumer_waiting, __ATOMIC_RELAXED);
}

static int receive(ring_t *r, pool_t *p, uint64_t me) {
    uint64_t h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    while (__atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == h) {
        __builtin_ia32_pause();
    }
    unsigned char *c = r->cells[h % CAP];
    uint64_t body[21];
    char text[sizeof handle];
    if (__atomic_load_n((uint64_t *) c, __ATOMIC_ACQUIRE) != h) {
        abort();
    }
    memcpy(body, c + 8, sizeof body);
    memcpy(text, c + 192, sizeof text);
    int slot = (int) body[2];
    if (!cas(&p->owner[slot], IN_QUEUE | h, me)) {
        abort();
    }
    __atomic_exchange_n(&r->head, h + 1, __ATOMIC_SEQ_CST);
    (void) __atomic_load_n(&r->producer_waiting, __ATOMIC_RELAXED);
    return slot;
}

static int by_value(const void *a, const void *b) {
    long x = *(const long *) a, y = *(const long *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "tp") != 0 && strcmp(argv[1], "rt") != 0) || atol(argv[2]) < 100) {
        fprintf(stderr, "usage: ring_floor tp|rt MESSAGES (>= 100)\n");
        return 2;
    }
    int tp = strcmp(argv[1], "tp") == 0;
    long n = atol(argv[2]);
    void *m = mmap(0, 2 * sizeof(ring_t) + sizeof(pool_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    ring_t *there = m, *back = there + 1;
    pool_t *p = (pool_t *) (back + 1);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        for (long i = 0; i < n; i++) {
            int s = receive(there, p, 2);
            if (tp) {
                if (p->data[s][0] != (double) i || !cas(&p->owner[s], 2, 0)) {
                    abort();
                }
            } else {
                send(back, p, s, 2);
            }
        }
        _exit(0);
    }
    long skip = n / 4;
    if (tp) {
        long t0 = 0;
        for (long i = 0; i < n; i++) {
            if (i == skip) {
                t0 = now();
            }
            int s = acquire(p, 1);
            p->data[s][0] = (double) i;
            send(there, p, s, 1);
        }
        int status;
        waitpid(child, &status, 0);
        printf("ring one-way: %.2f M messages/s\n", (n - skip) * 1e3 / (now() - t0));
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
    }
    long *t = malloc(sizeof(long) * n);
    for (long i = 0; i < n; i++) {
        long a = now();
        send(there, p, acquire(p, 1), 1);
        int s = receive(back, p, 1);
        if (!cas(&p->owner[s], 1, 0)) {
            abort();
        }
        t[i] = now() - a;
    }
    int status;
    waitpid(child, &status, 0);
    qsort(t + skip, n - skip, sizeof(long), by_value);
    printf("ring round trip: p50 %.2f us, p99 %.2f us\n", t[skip + (n - skip) / 2] / 1e3, t[skip + (n - skip) * 99 / 100] / 1e3);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
