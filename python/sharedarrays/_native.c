/*
 * What Python cannot do by itself: sequentially consistent atomics on a 32- or 64-bit word at an
 * address, futex wait/wake on a 32-bit word in a shared mapping, and the address of a buffer; and
 * what it does too slowly: a spin on a word, a queue's send and receive step and a pool's acquire and
 * free (hundreds of interpreted calls each, tens of microseconds a round trip).
 * Values cross as unsigned integers (Python ints are masked to the word's width on the way in).
 * Addresses come from address() of a mapping this process keeps open; the caller checks bounds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SC __ATOMIC_SEQ_CST

static PyObject *load32(PyObject *self, PyObject *args) {
    unsigned long long a;
    if (!PyArg_ParseTuple(args, "K", &a)) return NULL;
    return PyLong_FromUnsignedLong(__atomic_load_n((uint32_t *)(uintptr_t)a, SC));
}

static PyObject *load64(PyObject *self, PyObject *args) {
    unsigned long long a;
    if (!PyArg_ParseTuple(args, "K", &a)) return NULL;
    return PyLong_FromUnsignedLongLong(__atomic_load_n((uint64_t *)(uintptr_t)a, SC));
}

static PyObject *store32(PyObject *self, PyObject *args) {
    unsigned long long a;
    unsigned int v;
    if (!PyArg_ParseTuple(args, "KI", &a, &v)) return NULL;
    __atomic_store_n((uint32_t *)(uintptr_t)a, (uint32_t)v, SC);
    Py_RETURN_NONE;
}

static PyObject *store64(PyObject *self, PyObject *args) {
    unsigned long long a, v;
    if (!PyArg_ParseTuple(args, "KK", &a, &v)) return NULL;
    __atomic_store_n((uint64_t *)(uintptr_t)a, (uint64_t)v, SC);
    Py_RETURN_NONE;
}

/* cas32(addr, expected, new) -> True if the word held expected and now holds new */
static PyObject *cas32(PyObject *self, PyObject *args) {
    unsigned long long a;
    unsigned int e, n;
    if (!PyArg_ParseTuple(args, "KII", &a, &e, &n)) return NULL;
    uint32_t exp = e;
    return PyBool_FromLong(__atomic_compare_exchange_n((uint32_t *)(uintptr_t)a, &exp, (uint32_t)n, 0, SC, SC));
}

static PyObject *cas64(PyObject *self, PyObject *args) {
    unsigned long long a, e, n;
    if (!PyArg_ParseTuple(args, "KKK", &a, &e, &n)) return NULL;
    uint64_t exp = e;
    return PyBool_FromLong(__atomic_compare_exchange_n((uint64_t *)(uintptr_t)a, &exp, (uint64_t)n, 0, SC, SC));
}

/* fetch_add32(addr, delta) -> the old value; a negative delta is masked, so it subtracts */
static PyObject *fetch_add32(PyObject *self, PyObject *args) {
    unsigned long long a;
    unsigned int d;
    if (!PyArg_ParseTuple(args, "KI", &a, &d)) return NULL;
    return PyLong_FromUnsignedLong(__atomic_fetch_add((uint32_t *)(uintptr_t)a, (uint32_t)d, SC));
}

static PyObject *fetch_add64(PyObject *self, PyObject *args) {
    unsigned long long a, d;
    if (!PyArg_ParseTuple(args, "KK", &a, &d)) return NULL;
    return PyLong_FromUnsignedLongLong(__atomic_fetch_add((uint64_t *)(uintptr_t)a, (uint64_t)d, SC));
}

/*
 * futex_wait(addr, expected, timeout_ns) -> 0 when woken, else the errno (EAGAIN: the word did not
 * hold expected; ETIMEDOUT; EINTR). Not FUTEX_PRIVATE: the word is in a mapping other processes share.
 * The GIL is released while asleep; a signal's Python handler runs before this returns.
 */
static PyObject *futex_wait(PyObject *self, PyObject *args) {
    unsigned long long a, ns;
    unsigned int expected;
    if (!PyArg_ParseTuple(args, "KIK", &a, &expected, &ns)) return NULL;
    struct timespec ts = {(time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL)};
    long r;
    int err = 0;
    Py_BEGIN_ALLOW_THREADS
    r = syscall(SYS_futex, (uint32_t *)(uintptr_t)a, FUTEX_WAIT, expected, &ts, NULL, 0);
    if (r != 0) err = errno;
    Py_END_ALLOW_THREADS
    if (err == EINTR && PyErr_CheckSignals() != 0) return NULL;
    return PyLong_FromLong(err);
}

/* futex_wake(addr, n) -> how many sleepers were woken */
static PyObject *futex_wake(PyObject *self, PyObject *args) {
    unsigned long long a;
    int n;
    if (!PyArg_ParseTuple(args, "Ki", &a, &n)) return NULL;
    long r = syscall(SYS_futex, (uint32_t *)(uintptr_t)a, FUTEX_WAKE, n, NULL, NULL, 0);
    if (r < 0) return PyErr_SetFromErrno(PyExc_OSError);
    return PyLong_FromLong(r);
}

/* ---------------------------------------------------------------- the queue's common steps in one call each
 * PROTOCOL.md 15.4, for the step that needs no waiting: the mutex free at the first try, room (send) or a
 * message whose pool the caller has attached (receive). Anything else ("not now") changes nothing but
 * what every step may do (publish a dead sender's cell) and leaves the step to the Python code. The GIL is
 * held throughout, so no mapping named here can be unmapped meanwhile: the caller passes the segments and
 * each is checked open first. */

enum { Q_MUTEX = 16, Q_HEAD = 32, Q_TAIL = 40, Q_PUT_SEQ = 48, Q_PUT_WAITERS = 52, Q_TAKE_SEQ = 56,
       Q_TAKE_WAITERS = 60, Q_ENDED = 64, Q_CELLS = 1152, CELL_SIZE = 512, CELL_KIND = 8, CELL_ID = 16,
       CELL_INDEX = 24, CELL_HANDLE_LENGTH = 36, CELL_HANDLE = 192, MAX_HANDLE = 320 };
#define IN_QUEUE_BIT 0x8000000000000000ULL
#define NOT_NOW (-1)

static inline uint64_t ld64(uintptr_t a) { return __atomic_load_n((uint64_t *)a, SC); }
static inline void st64(uintptr_t a, uint64_t v) { __atomic_store_n((uint64_t *)a, v, SC); }
static inline int cas64_at(uintptr_t a, uint64_t e, uint64_t n) {
    return __atomic_compare_exchange_n((uint64_t *)a, &e, n, 0, SC, SC);
}

/* Futex.bump: add one to the word, wake its sleepers if the waiters word counts any */
static void bump(uintptr_t word, uintptr_t waiters) {
    __atomic_fetch_add((uint32_t *)word, 1, SC);
    if (__atomic_load_n((uint32_t *)waiters, SC) != 0)
        syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 0x7FFFFFFF, NULL, NULL, 0);
}

static void unlock(uintptr_t q) {
    st64(q + Q_MUTEX, 0);
    bump(q + Q_MUTEX + 8, q + Q_MUTEX + 12);
}

/* QueueProtocol.damaged, on the words read unsigned */
static int damaged(uint64_t h, uint64_t t, uint64_t cap) {
    return (h >> 63) != 0 || (t >> 63) != 0 || t < h || t - h > cap;
}

static uintptr_t cell(uintptr_t q, uint64_t p, uint64_t cap) { return q + Q_CELLS + CELL_SIZE * (p % cap); }

static void publish_dead_senders_cell(uintptr_t q, uint64_t cap) {
    uint64_t t = ld64(q + Q_TAIL), h = ld64(q + Q_HEAD);
    if (!damaged(h, t, cap) && t - h < cap && ld64(cell(q, t, cap)) == t) {
        st64(q + Q_TAIL, t + 1);
        bump(q + Q_PUT_SEQ, q + Q_PUT_WAITERS);
    }
}

static PyObject *closed_name; /* "closed", interned once: a step looks it up on two segments */
static PyObject *closing_name; /* "_closing": a Queue's or Pool's, set once its close() began */

/* 1 if the attribute is False; 0 if it is anything else or unreadable (an error is cleared) */
static int attr_false(PyObject *o, PyObject *name) {
    PyObject *c = PyObject_GetAttr(o, name);
    if (c == NULL) { PyErr_Clear(); return 0; }
    int no = c == Py_False;
    Py_DECREF(c);
    return no;
}

/* 1 if a segment's `closed` is false; 0 if true or unreadable */
static int is_open(PyObject *seg) { return attr_false(seg, closed_name); }

/* 1 if the Queue's or Pool's close() began (its _closing is not False) or it cannot be read */
static int closing(PyObject *o) { return !attr_false(o, closing_name); }

/* K of PyArg_ParseTuple for the METH_FASTCALL steps: an int (or what __index__ makes one), masked to 64 bits.
 * The steps convert every argument before they test or change anything. */
static int u64_arg(PyObject *o, unsigned long long *v) {
    if (PyLong_Check(o)) {
        *v = PyLong_AsUnsignedLongLongMask(o);
    } else {
        PyObject *i = PyNumber_Index(o);
        if (i == NULL) return 0;
        *v = PyLong_AsUnsignedLongLongMask(i);
        Py_DECREF(i);
    }
    return !(*v == (unsigned long long)-1 && PyErr_Occurred());
}

/* 1 if state, a Slot's list (checked: a list of one item), holds the int v */
static int state_is(PyObject *state, long v) {
    PyObject *s = PyList_GET_ITEM(state, 0);
    if (!PyLong_CheckExact(s) || PyLong_AsLong(s) != v) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* 1 if state (a Slot's one-item list) held expected and now holds new (a small int: the dropped one is
 * one too, so no code runs); 0 if it did not; -1 with an error. With the GIL held and no Python code run,
 * this is one step for every other thread of the process: every transition of a Slot's state is one. */
static int state_cas_at(PyObject *state, long expected, long new) {
    if (!PyList_Check(state) || PyList_GET_SIZE(state) != 1) {
        PyErr_SetString(PyExc_TypeError, "state must be a list of one int");
        return -1;
    }
    if (!state_is(state, expected)) return 0;
    PyObject *n = PyLong_FromLong(new);
    if (n == NULL) return -1;
    PyList_SetItem(state, 0, n); /* steals n */
    return 1;
}

/* Removes held[index] if it is state (a Slot's entry in its pool's held slots): in the same step as the
 * transition, so that no other thread's Slot of the same index is there yet. 0, or -1 with an error. */
static int drop_held(PyObject *held, PyObject *index, PyObject *state) {
    if (!PyDict_Check(held)) {
        PyErr_SetString(PyExc_TypeError, "held must be a dict");
        return -1;
    }
    PyObject *v = PyDict_GetItemWithError(held, index); /* borrowed */
    if (v == NULL) return PyErr_Occurred() ? -1 : 0;
    return v == state ? PyDict_DelItem(held, index) : 0;
}

/* A new Slot state: [0], held. New reference, or NULL with an error. */
static PyObject *held_state(void) {
    PyObject *state = PyList_New(1);
    if (state != NULL) PyList_SET_ITEM(state, 0, PyLong_FromLong(0)); /* a small int: cannot fail */
    return state;
}

/* (1, id, index, a new held state): what queue_take returns for a pool slot. New reference, or NULL with an error. */
static PyObject *claimed(unsigned long long id, unsigned long long index) {
    PyObject *out = PyTuple_New(4);
    if (out == NULL) return NULL;
    PyObject *items[4] = {PyLong_FromLong(1), PyLong_FromUnsignedLongLong(id), PyLong_FromUnsignedLongLong(index), held_state()};
    for (int i = 0; i < 4; i++) {
        if (items[i] == NULL) {
            for (int j = 0; j < 4; j++) Py_XDECREF(items[j]);
            Py_DECREF(out);
            return NULL;
        }
    }
    for (int i = 0; i < 4; i++) PyTuple_SET_ITEM(out, i, items[i]);
    return out;
}

/* state_cas(state, expected, new) -> True if the Slot's state went expected -> new */
static PyObject *state_cas(PyObject *self, PyObject *args) {
    PyObject *state;
    long expected, new;
    if (!PyArg_ParseTuple(args, "Oll", &state, &expected, &new)) return NULL;
    int r = state_cas_at(state, expected, new);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static int arg_count(const char *name, Py_ssize_t nargs, Py_ssize_t want) {
    if (nargs == want) return 1;
    PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", name, want, nargs);
    return 0;
}

/*
 * queue_put(queue_seg, q, capacity, me, body, pool_seg, owner, owner_high, state, held, index) -> 0 sent, 1 the
 * slot is not held (its owner word did not hold me, or state[0] was not 0: nothing sent), -1 not now. body:
 * the cell from CELL_KIND on (every field but the position), bytes. owner: the slot's owner word for a pool
 * slot (0 for a view), which moves me -> owner_high|tail. state: the Slot's state list, 0 held, set to 2 once
 * sent, and held[index] its entry in the pool's held slots, dropped then (all three None for a view). The GIL
 * is held and no Python code runs, so the test, the move and the set are one step for every other thread of
 * this process. METH_FASTCALL: a step pays no argument tuple.
 */
static PyObject *queue_put(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    unsigned long long q, cap, me, owner, high;
    if (!arg_count("queue_put", nargs, 11) || !u64_arg(args[1], &q) || !u64_arg(args[2], &cap) || !u64_arg(args[3], &me)
        || !u64_arg(args[6], &owner) || !u64_arg(args[7], &high)) return NULL;
    PyObject *qseg = args[0], *body = args[4], *pseg = args[5], *state = args[8], *held = args[9], *index = args[10];
    if (!PyBytes_Check(body)) return PyErr_Format(PyExc_TypeError, "body must be bytes, not %.100s", Py_TYPE(body)->tp_name);
    if (state != Py_None) {
        if (!PyList_Check(state) || PyList_GET_SIZE(state) != 1 || !PyDict_Check(held) || !PyLong_CheckExact(index))
            return PyErr_Format(PyExc_TypeError, "state must be a list of one int, held a dict and index an int");
        if (!state_is(state, 0)) return PyLong_FromLong(1); /* set to 2 below, once sent: nothing runs between */
    }
    Py_ssize_t len = PyBytes_GET_SIZE(body);
    if (cap < 1 || len > CELL_SIZE - CELL_KIND || !is_open(qseg) || (owner != 0 && !is_open(pseg)))
        return PyLong_FromLong(NOT_NOW);
    if (!cas64_at(q + Q_MUTEX, 0, me)) return PyLong_FromLong(NOT_NOW);
    long r = NOT_NOW;
    publish_dead_senders_cell(q, cap);
    uint64_t t = ld64(q + Q_TAIL), h = ld64(q + Q_HEAD);
    if (ld64(q + Q_ENDED) == 0 && !damaged(h, t, cap) && t - h < cap) {
        uintptr_t c = cell(q, t, cap);
        memcpy((void *)(c + CELL_KIND), PyBytes_AS_STRING(body), (size_t)len);
        st64(c, t);
        if (owner != 0 && !cas64_at(owner, me, high | (t & 0xFFFFFFFFULL))) {
            st64(c, ~0ULL);
            r = 1;
        } else {
            st64(q + Q_TAIL, t + 1);
            bump(q + Q_PUT_SEQ, q + Q_PUT_WAITERS);
            r = 0;
        }
    }
    unlock(q);
    /* sent: the state and held change (a small int, a dict entry of an int key: no allocation, no code); the
     * message is out, so an error here could not be the caller's to handle, and is only reported */
    if (r == 0 && state != Py_None && (state_cas_at(state, 0, 2) < 0 || drop_held(held, index, state) < 0))
        PyErr_WriteUnraisable(NULL);
    return PyLong_FromLong(r);
}

/* The message at the head taken, or the PUT_SEQ seen (an int >= 0) if empty, or NOT_NOW: queue_take's step. */
static PyObject *take_once(PyObject *queue, PyObject *qseg, uintptr_t q, uint64_t cap, uint64_t me, uint64_t high,
                           PyObject *pools) {
    if (cap < 1 || !is_open(qseg) || closing(queue) || !cas64_at(q + Q_MUTEX, 0, me)) return PyLong_FromLong(NOT_NOW);
    publish_dead_senders_cell(q, cap);
    uint32_t seen = __atomic_load_n((uint32_t *)(q + Q_PUT_SEQ), SC);
    uint64_t h = ld64(q + Q_HEAD), t = ld64(q + Q_TAIL);
    PyObject *out = NULL;
    if (damaged(h, t, cap)) goto not_now;
    if (h == t) {
        if (ld64(q + Q_ENDED) != 0) goto not_now;
        out = PyLong_FromUnsignedLong(seen);
        goto done;
    }
    uintptr_t c = cell(q, h, cap);
    if (ld64(c) != h) goto not_now;
    uint32_t kind = *(volatile uint32_t *)(c + CELL_KIND), ndim = *(volatile uint32_t *)(c + CELL_KIND + 4);
    uint32_t hlen = *(volatile uint32_t *)(c + CELL_HANDLE_LENGTH);
    uint64_t id = *(volatile uint64_t *)(c + CELL_ID), index = *(volatile uint64_t *)(c + CELL_INDEX);
    if (ndim < 1 || ndim > 8 || hlen > MAX_HANDLE) goto not_now;
    if (kind == 1) {
        /* (1, id, index, state), made first: making a tuple or a list may run the garbage collector, whose
         * finalizers may let another thread close the pool or replace its entry in pools (borrowed below) */
        out = claimed(id, index);
        if (out == NULL) goto fail;
        PyObject *key = PyLong_FromUnsignedLongLong(id); /* an int: the collector does not track ints */
        if (key == NULL) goto fail;
        PyObject *p = PyDict_GetItemWithError(pools, key); /* borrowed */
        Py_DECREF(key);
        if (p == NULL) {
            if (PyErr_Occurred()) goto fail;
            Py_CLEAR(out);
            goto not_now;
        }
        PyObject *pseg, *held, *pool;
        unsigned long long owners, slots;
        if (!PyArg_ParseTuple(p, "OKKO!O", &pseg, &owners, &slots, &PyDict_Type, &held, &pool)) goto fail;
        if (index >= slots || !is_open(pseg) || closing(pool) || !cas64_at(owners + 8 * index, high | (h & 0xFFFFFFFFULL), me)) {
            Py_CLEAR(out);
            goto not_now;
        }
        /* the new state entered as held[index] in this step: a close of the pool in another thread then finds
         * it among the held slots and gives it back */
        if (PyDict_SetItem(held, PyTuple_GET_ITEM(out, 2), PyTuple_GET_ITEM(out, 3)) < 0) {
            cas64_at(owners + 8 * index, me, high | (h & 0xFFFFFFFFULL)); /* back to the queue, as if never claimed */
            Py_CLEAR(out);
            goto done;
        }
    } else if (kind == 2) {
        out = Py_BuildValue("iKy#", 2, h, (const char *)(c + CELL_KIND), (Py_ssize_t)(CELL_HANDLE - CELL_KIND + hlen));
        if (out == NULL) goto done;
    } else {
        goto not_now;
    }
    st64(q + Q_HEAD, h + 1);
    bump(q + Q_TAKE_SEQ, q + Q_TAKE_WAITERS);
    goto done;
not_now:
    out = PyLong_FromLong(NOT_NOW);
    goto done;
fail:
    Py_CLEAR(out);
done:
    unlock(q);
    return out;
}

/* Nanoseconds a spin only pauses the core; after them it offers the core between looks. Shorter
 * (3 µs) made the hot Python -> Python round trip 15% slower (bin/bench python, docs/BENCHMARKS.md). */
#define SPIN_PAUSE_NS 10000ULL

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* 1 once the u32 at a no longer holds seen, 0 after max_ns; called without the GIL. Past SPIN_PAUSE_NS each
 * look is followed by sched_yield, as Java's Backoff does: the scheduler may have put the process waited
 * for on this core (it does when it wakes a process from its waker's core), and a spin that only paused
 * kept it from running. */
static int spin(uintptr_t a, uint32_t seen, uint64_t max_ns) {
    uint64_t start = now_ns(), end = start + max_ns;
    int yielding = 0;
    for (uint64_t i = 0;; i++) {
        if (__atomic_load_n((uint32_t *)a, __ATOMIC_ACQUIRE) != seen) return 1;
        if (yielding) {
            sched_yield();
        } else {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            __asm__ __volatile__("yield");
#endif
        }
        if (yielding || (i & 63) == 63) {
            uint64_t now = now_ns();
            if (now >= end) return 0;
            yielding = now - start >= SPIN_PAUSE_NS;
        }
    }
}

static PyObject *mm_name; /* "mm": a segment's mapping, held exported while a step spins without the GIL */

/*
 * queue_take(queue, queue_seg, q, capacity, me, tag_high, pools, spin_ns) -> the message at the head, taken:
 * (1, id, index, state) for a pool slot claimed for me (state: the new Slot's, entered in the pool's held
 * slots), (2, position, body) for a view (body: the cell from CELL_KIND on); or the PUT_SEQ seen (an int >= 0)
 * when the queue is empty and not ended; or -1: not now (mutex busy, damaged, ended, a malformed cell, a slot
 * of a pool not in pools, closing or not claimable: the caller's long way decides). pools: {pool id: (segment,
 * owner words address, slots, the pool's held slots, the Pool)}. An empty queue is
 * watched for up to spin_ns first (the GIL released, the queue's mapping held by an export of queue_seg.mm,
 * which its close cannot unmap meanwhile), then taken from once more unless the queue's close() began
 * meanwhile (queue: the Queue, whose _closing is looked at before each take). METH_FASTCALL.
 */
static PyObject *queue_take(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    unsigned long long q, cap, me, high, spin_ns;
    if (!arg_count("queue_take", nargs, 8) || !u64_arg(args[2], &q) || !u64_arg(args[3], &cap) || !u64_arg(args[4], &me)
        || !u64_arg(args[5], &high) || !u64_arg(args[7], &spin_ns)) return NULL;
    PyObject *queue = args[0], *qseg = args[1], *pools = args[6];
    if (!PyDict_Check(pools)) return PyErr_Format(PyExc_TypeError, "pools must be a dict");
    PyObject *out = take_once(queue, qseg, (uintptr_t)q, cap, me, high, pools);
    if (out == NULL || spin_ns == 0 || !PyLong_Check(out)) return out;
    long seen = PyLong_AsLong(out); /* -1 (not now) or a u32 */
    if (seen < 0) return out;
    PyObject *mm = PyObject_GetAttr(qseg, mm_name);
    Py_buffer view;
    if (mm == NULL || PyObject_GetBuffer(mm, &view, PyBUF_SIMPLE) != 0) {
        PyErr_Clear(); /* closed meanwhile: the caller's long way says so */
        Py_XDECREF(mm);
        return out;
    }
    uintptr_t word = (uintptr_t)q + Q_PUT_SEQ, base = (uintptr_t)view.buf;
    int changed = 0;
    if (word >= base && word + 4 <= base + (uintptr_t)view.len) { /* the word lies in the mapping held */
        Py_BEGIN_ALLOW_THREADS
        changed = spin(word, (uint32_t)seen, spin_ns);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    Py_DECREF(mm);
    if (!changed) return out;
    Py_DECREF(out);
    return take_once(queue, qseg, (uintptr_t)q, cap, me, high, pools);
}

/* spin_while(addr, seen, max_ns) -> True once the u32 at addr no longer holds seen, False after max_ns
 * of spinning (the GIL released meanwhile; the caller holds the mapping). */
static PyObject *spin_while(PyObject *self, PyObject *args) {
    unsigned long long a, max_ns;
    unsigned int seen;
    if (!PyArg_ParseTuple(args, "KIK", &a, &seen, &max_ns)) return NULL;
    int changed;
    Py_BEGIN_ALLOW_THREADS
    changed = spin((uintptr_t)a, seen, max_ns);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(changed);
}

/* ---------------------------------------------------------------- a pool's common steps in one call each
 * PoolProtocol's acquire and free where nothing waits; the pool's segment is checked open first and the GIL
 * is held throughout, as in the queue's steps. */

/*
 * pool_take(pool, pool_seg, owners, slots, me, start, held) -> (index, state) for a slot whose owner word (at
 * owners + 8 * index) moved 0 -> me, looking from start on, round, with its new Slot's state entered as
 * held[index] in the same step (as queue_take's); -1 if none was free, the pool is closed or its close()
 * began (pool._closing).
 */
static PyObject *pool_take(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    unsigned long long owners, slots, me, start;
    if (!arg_count("pool_take", nargs, 7) || !u64_arg(args[2], &owners) || !u64_arg(args[3], &slots)
        || !u64_arg(args[4], &me) || !u64_arg(args[5], &start)) return NULL;
    PyObject *held = args[6];
    if (!PyDict_Check(held)) return PyErr_Format(PyExc_TypeError, "held must be a dict");
    /* the tuple and the state first: making them may run the garbage collector, whose finalizers may let
     * another thread close the pool, so nothing is made between the checks and the claim but the index (an
     * int: the collector does not track ints) */
    PyObject *state = held_state(), *out = state == NULL ? NULL : PyTuple_New(2);
    if (out == NULL) {
        Py_XDECREF(state);
        return NULL;
    }
    PyTuple_SET_ITEM(out, 1, state);
    if (slots < 1 || !is_open(args[1]) || closing(args[0])) {
        Py_DECREF(out); /* its empty item is skipped */
        return PyLong_FromLong(-1);
    }
    for (unsigned long long k = 0; k < slots; k++) {
        unsigned long long i = (start + k) % slots;
        if (ld64(owners + 8 * i) != 0 || !cas64_at(owners + 8 * i, 0, me)) continue;
        PyObject *index = PyLong_FromUnsignedLongLong(i);
        if (index != NULL) PyTuple_SET_ITEM(out, 0, index);
        if (index == NULL || PyDict_SetItem(held, index, state) < 0) {
            cas64_at(owners + 8 * i, me, 0); /* free again, unannounced: a waiter finds it at its next look */
            Py_DECREF(out);
            return NULL;
        }
        return out;
    }
    Py_DECREF(out);
    return PyLong_FromLong(-1);
}

/*
 * slot_claim(pool, pool_seg, owner, frm, me, held, index) -> 1: the owner word went frm -> me and a new Slot
 * state [0] is held[index], in one step (the queue's long way's claim, as take_once's); 0: the word did not
 * hold frm; -1: the pool is closed or its close() began, nothing done.
 */
static PyObject *slot_claim(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    unsigned long long owner, frm, me;
    if (!arg_count("slot_claim", nargs, 7) || !u64_arg(args[2], &owner) || !u64_arg(args[3], &frm)
        || !u64_arg(args[4], &me)) return NULL;
    PyObject *held = args[5], *index = args[6];
    if (!PyDict_Check(held) || !PyLong_CheckExact(index)) return PyErr_Format(PyExc_TypeError, "held must be a dict, index an int");
    PyObject *state = held_state(); /* first: it may run the collector (see pool_take) */
    if (state == NULL) return NULL;
    long r = -1;
    if (is_open(args[1]) && !closing(args[0])) {
        r = cas64_at(owner, frm, me);
        if (r == 1 && PyDict_SetItem(held, index, state) < 0) {
            cas64_at(owner, me, frm); /* back in flight, as if never claimed */
            Py_DECREF(state);
            return NULL;
        }
    }
    Py_DECREF(state);
    return PyLong_FromLong(r);
}

/*
 * slot_free(pool_seg, owner, me, seq, waiters, state, held, index) -> 0: state[0] went 0 -> 2, held[index] (if
 * it is state) was dropped and the owner word went me -> 0 (if it still held me) with the pool's futex word
 * bumped; 1: state[0] was not 0, nothing done; -1: the pool is closed, nothing done. One step for this
 * process's other threads, as queue_put's.
 */
static PyObject *slot_free(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    unsigned long long owner, me, seq, waiters;
    if (!arg_count("slot_free", nargs, 8) || !u64_arg(args[1], &owner) || !u64_arg(args[2], &me)
        || !u64_arg(args[3], &seq) || !u64_arg(args[4], &waiters)) return NULL;
    PyObject *state = args[5], *held = args[6], *index = args[7];
    if (!PyDict_Check(held)) return PyErr_Format(PyExc_TypeError, "held must be a dict");
    if (!is_open(args[0])) return PyLong_FromLong(-1);
    int r = state_cas_at(state, 0, 2);
    if (r <= 0) return r < 0 ? NULL : PyLong_FromLong(1);
    if (drop_held(held, index, state) < 0) return NULL;
    if (cas64_at(owner, me, 0)) bump(seq, waiters);
    return PyLong_FromLong(0);
}

/* address(buffer) -> the address of a writable buffer's first byte (an mmap object that stays open) */
static PyObject *address(PyObject *self, PyObject *args) {
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O", &o)) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_WRITABLE) != 0) return NULL;
    uintptr_t p = (uintptr_t)view.buf;
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong((unsigned long long)p);
}

static PyMethodDef methods[] = {
    {"load32", load32, METH_VARARGS, "load32(addr) -> int: seq-cst load of a u32"},
    {"load64", load64, METH_VARARGS, "load64(addr) -> int: seq-cst load of a u64"},
    {"store32", store32, METH_VARARGS, "store32(addr, value): seq-cst store of a u32"},
    {"store64", store64, METH_VARARGS, "store64(addr, value): seq-cst store of a u64"},
    {"cas32", cas32, METH_VARARGS, "cas32(addr, expected, new) -> bool"},
    {"cas64", cas64, METH_VARARGS, "cas64(addr, expected, new) -> bool"},
    {"fetch_add32", fetch_add32, METH_VARARGS, "fetch_add32(addr, delta) -> old value"},
    {"fetch_add64", fetch_add64, METH_VARARGS, "fetch_add64(addr, delta) -> old value"},
    {"futex_wait", futex_wait, METH_VARARGS, "futex_wait(addr, expected, timeout_ns) -> 0 or errno"},
    {"futex_wake", futex_wake, METH_VARARGS, "futex_wake(addr, n) -> woken"},
    {"queue_put", (PyCFunction)(void (*)(void))queue_put, METH_FASTCALL,
     "queue_put(queue_seg, q, cap, me, body, pool_seg, owner, owner_high, state, held, index) -> 0, 1 or -1"},
    {"queue_take", (PyCFunction)(void (*)(void))queue_take, METH_FASTCALL,
     "queue_take(queue, queue_seg, q, cap, me, tag_high, pools, spin_ns) -> message, seen or -1"},
    {"pool_take", (PyCFunction)(void (*)(void))pool_take, METH_FASTCALL,
     "pool_take(pool, pool_seg, owners, slots, me, start, held) -> (index, state) or -1"},
    {"slot_free", (PyCFunction)(void (*)(void))slot_free, METH_FASTCALL,
     "slot_free(pool_seg, owner, me, seq, waiters, state, held, index) -> 0, 1 or -1"},
    {"state_cas", state_cas, METH_VARARGS, "state_cas(state, expected, new) -> bool"},
    {"slot_claim", (PyCFunction)(void (*)(void))slot_claim, METH_FASTCALL,
     "slot_claim(pool, pool_seg, owner, frm, me, held, index) -> 1, 0 or -1"},
    {"spin_while", spin_while, METH_VARARGS, "spin_while(addr, seen, max_ns) -> True once changed"},
    {"address", address, METH_VARARGS, "address(buffer) -> int"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "sharedarrays._native",
    "Atomics, futex calls and buffer addresses for sharedarrays.", -1, methods};

PyMODINIT_FUNC PyInit__native(void) {
    closed_name = PyUnicode_InternFromString("closed");
    mm_name = PyUnicode_InternFromString("mm");
    closing_name = PyUnicode_InternFromString("_closing");
    if (closed_name == NULL || mm_name == NULL || closing_name == NULL) return NULL;
    return PyModule_Create(&module);
}
