/*
 * What Python cannot do by itself: sequentially consistent atomics on a 32- or 64-bit word at an
 * address, futex wait/wake on a 32-bit word in a shared mapping, and the address of a buffer.
 * Values cross as unsigned integers (Python ints are masked to the word's width on the way in).
 * Addresses come from address() of a mapping this process keeps open; the caller checks bounds.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
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
    {"address", address, METH_VARARGS, "address(buffer) -> int"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "sharedarrays._native",
    "Atomics, futex calls and buffer addresses for sharedarrays.", -1, methods};

PyMODINIT_FUNC PyInit__native(void) {
    return PyModule_Create(&module);
}
