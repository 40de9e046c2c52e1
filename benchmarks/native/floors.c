/*
 * The machine's floors for a hand-off between two processes, measured the way the queue benchmark
 * measures ours (p50 and p99 of round trips, one one-way row, nanoseconds from CLOCK_MONOTONIC):
 *   spin:  a cache line bounced between two processes that spin on it (the floor of a spinning hand-off);
 *   futex: the same, each side sleeping in FUTEX_WAIT until the other's FUTEX_WAKE (the blocking floor);
 *   futex after silence: one futex round trip after the given idle times (the sleeper has been asleep);
 *   futex one-way, busy waker: 5000 wake-ups of a sleeper, each 1 ms after it fell asleep, by a process
 *     that spins all the while, one way (the sleeper's clock read after it woke, minus the waker's before
 *     its store): the queue benchmark's one-way row paced at 1 ms. As the waker keeps its core busy, the
 *     sleeper usually runs on the other one, idle till then.
 * Usage: floors [round-trips] [silence-ms,...|spin]; prints one line per floor: name p50_ns p99_ns count.
 * With "spin" only the spinning floor, which the queue benchmark measures again after each of its rows.
 * Built and run by bin/bench queue (cc -O2); not part of the library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
    _Alignas(64) _Atomic int ping;
    _Alignas(64) _Atomic int pong;
    _Alignas(64) _Atomic long woke; /* one_way_busy: the sleeper's clock after its wake-up, 0 until then */
};

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() ((void) 0)
#endif

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void futex_wait(_Atomic int *w, int seen) {
    syscall(SYS_futex, w, FUTEX_WAIT, seen, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *w) {
    syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Waits until *w != seen: spinning, or in the futex. */
static int await_change(_Atomic int *w, int seen, int spin) {
    int v;
    while ((v = atomic_load_explicit(w, memory_order_acquire)) == seen) {
        if (!spin) {
            futex_wait(w, seen);
        }
    }
    return v;
}

static void publish(_Atomic int *w, int v, int spin) {
    atomic_store_explicit(w, v, memory_order_release);
    if (!spin) {
        futex_wake(w);
    }
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *) a, y = *(const long *) b;
    return x < y ? -1 : x > y;
}

/* n round trips (after n/10 unmeasured), the echo in a child process; returns the times sorted. */
static long *round_trips(struct shared *s, int n, int spin, const int *silence_ms) {
    int warm = n / 10;
    atomic_store(&s->ping, 0);
    atomic_store(&s->pong, 0);
    pid_t child = fork();
    if (child < 0) {
        perror("floors: fork");
        exit(1);
    }
    if (child == 0) {
        for (int i = 1; i <= warm + n; i++) {
            await_change(&s->ping, i - 1, spin);
            publish(&s->pong, i, spin);
        }
        _exit(0);
    }
    long *t = malloc(sizeof(long) * n);
    for (int i = 1; i <= warm + n; i++) {
        if (silence_ms != NULL && i > warm) {
            struct timespec idle = {silence_ms[i - warm - 1] / 1000, (silence_ms[i - warm - 1] % 1000) * 1000000L};
            nanosleep(&idle, NULL);
        }
        long t0 = now_ns();
        publish(&s->ping, i, spin);
        await_change(&s->pong, i - 1, spin);
        if (i > warm) {
            t[i - warm - 1] = now_ns() - t0;
        }
    }
    waitpid(child, NULL, 0);
    return t;
}

/* n one-way wake-ups (after n/10 unmeasured) of a child asleep in FUTEX_WAIT, each after pace_ns of our spinning. */
static long *one_way_busy(struct shared *s, int n, long pace_ns) {
    int warm = n / 10;
    _Atomic long *got = &s->woke;
    atomic_store(&s->ping, 0);
    atomic_store(got, 0);
    pid_t child = fork();
    if (child < 0) {
        perror("floors: fork");
        exit(1);
    }
    if (child == 0) {
        for (int i = 1; i <= warm + n; i++) {
            await_change(&s->ping, i - 1, 0);
            atomic_store_explicit(got, now_ns(), memory_order_release);
        }
        _exit(0);
    }
    long *t = malloc(sizeof(long) * n);
    for (int i = 1; i <= warm + n; i++) {
        long start = now_ns();
        while (now_ns() - start < pace_ns) {
            cpu_relax();
        }
        atomic_store(got, 0);
        long t0 = now_ns();
        publish(&s->ping, i, 0);
        long g;
        while ((g = atomic_load_explicit(got, memory_order_acquire)) == 0) {
            cpu_relax();
            if (now_ns() - t0 > 10000000000L) { /* the child died: say so rather than hang the bench */
                fprintf(stderr, "floors: the sleeper did not wake within 10 s\n");
                kill(child, SIGKILL);
                exit(1);
            }
        }
        if (i > warm) {
            t[i - warm - 1] = g - t0;
        }
    }
    waitpid(child, NULL, 0);
    return t;
}

static void report(const char *name, long *t, int n) {
    qsort(t, n, sizeof(long), cmp_long);
    printf("%s %ld %ld %d\n", name, t[(n - 1) / 2], t[(int) (0.99 * (n - 1))], n);
    fflush(stdout);
    free(t);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    struct shared *s = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED || n < 10) {
        fprintf(stderr, "floors: %s\n", n < 10 ? "round trips must be >= 10" : strerror(errno));
        return 1;
    }
    report("spin", round_trips(s, n, 1, NULL), n);
    if (argc > 2 && strcmp(argv[2], "spin") == 0) {
        return 0; /* the line's floor alone, between two rows of a bench: the host may have moved the vCPUs */
    }
    report("futex", round_trips(s, n, 0, NULL), n);
    report("futex-one-way-busy-1ms", one_way_busy(s, 5000, 1000000L), 5000);
    if (argc > 2) {
        char *list = strdup(argv[2]);
        for (char *ms = strtok(list, ","); ms != NULL; ms = strtok(NULL, ",")) {
            int quiet = atoi(ms), trips = quiet >= 100 ? 20 : quiet >= 10 ? 100 : 300;
            int *idle = malloc(sizeof(int) * trips);
            for (int i = 0; i < trips; i++) {
                idle[i] = quiet;
            }
            char name[64];
            snprintf(name, sizeof name, "futex-after-%dms", quiet);
            report(name, round_trips(s, trips, 0, idle), trips);
            free(idle);
        }
        free(list);
    }
    return 0;
}
