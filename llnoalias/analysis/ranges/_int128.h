/* Python ints as 128-bit machine integers, for the compiled range
 * queries (_solver.c): interval ends of values of at most 64 bits fit. */
#ifndef LLNOALIAS_INT128_H
#define LLNOALIAS_INT128_H

#include <Python.h>

typedef unsigned long long u64;
typedef __int128 i128;

/* 2**64, made by int128_init() */
static PyObject *Two64;

static int int128_init(void) {
    if (Two64 == NULL) Two64 = PyLong_FromString("18446744073709551616", NULL, 10);
    return Two64 == NULL ? -1 : 0;
}

/* v as a 128-bit integer when it is an int in [-2**63, 2**64); 0 when not (no error set) */
static int to_i128(PyObject *v, i128 *out) {
    if (!PyLong_Check(v))
        return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow == 0) {
        if (x == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        *out = (i128)x;
        return 1;
    }
    if (overflow < 0)
        return 0;
    u64 u = PyLong_AsUnsignedLongLong(v);
    if (u == (u64)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    *out = (i128)u;
    return 1;
}

static PyObject *from_i128(i128 v) {
    if (v >= -((i128)1 << 63) && v < ((i128)1 << 63))
        return PyLong_FromLongLong((long long)v);
    if (v >= 0 && v < ((i128)1 << 64))
        return PyLong_FromUnsignedLongLong((u64)v);
    /* (v >> 64) * 2**64 + the low 64 bits: any 128-bit value */
    PyObject *high = PyLong_FromLongLong((long long)(v >> 64)), *low = PyLong_FromUnsignedLongLong((u64)v);
    PyObject *scaled = high == NULL || low == NULL ? NULL : PyNumber_Multiply(high, Two64);
    PyObject *r = scaled == NULL ? NULL : PyNumber_Add(scaled, low);
    Py_XDECREF(high);
    Py_XDECREF(low);
    Py_XDECREF(scaled);
    return r;
}

#endif
