/* Known bits and interval ends of values of at most 64 bits, on machine integers: the
 * arithmetic of knownbits.py and interval.py that the compiled range queries
 * (_solver.c) do inside their walk. Masks are 64-bit, ends 128-bit; each function is its Python original's
 * arithmetic, line for line, for widths 1 to 64. make() builds the namedtuples (Range,
 * Off, Known) the answers are returned in. */
#ifndef LLNOALIAS_KBITS_H
#define LLNOALIAS_KBITS_H

#include "_int128.h"

/* a namedtuple of the given type from n new references (stolen, NULLs allowed: then NULL) */
static inline PyObject *make(PyObject *type, Py_ssize_t n, PyObject **items) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        for (Py_ssize_t i = 0; i < n; i++)
            Py_XDECREF(items[i]);
        return NULL;
    }
    int bad = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (items[i] == NULL)
            bad = 1;
        PyTuple_SET_ITEM(t, i, items[i]);  /* a NULL slot is freed safely by tuple dealloc */
    }
    if (bad) {
        Py_DECREF(t);
        return NULL;
    }
    PyObject *args = PyTuple_Pack(1, t);
    Py_DECREF(t);
    if (args == NULL)
        return NULL;
    /* tuple.__new__(type, items): the namedtuple without its Python-level __new__ */
    PyObject *r = PyTuple_Type.tp_new((PyTypeObject *)type, args, NULL);
    Py_DECREF(args);
    return r;
}

/* a pair of masks: bits known to be 0 and bits known to be 1 */
typedef struct {
    u64 zero, one;
} KB;

/* an int as 64 bits: exactly (``exact``: an int in [0, 2**64)) or its low 64 bits
 * (``v & (2**64 - 1)``, negative ints too); 0 when it cannot be read so */
static inline int read_u64(PyObject *v, int exact, u64 *out) {
    if (!PyLong_Check(v))
        return 0;
    u64 u = exact ? PyLong_AsUnsignedLongLong(v) : PyLong_AsUnsignedLongLongMask(v);
    if (u == (u64)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    *out = u;
    return 1;
}

/* an int in [lo, hi] as an int; 0 when it is not one */
static inline int read_small(PyObject *v, long lo, long hi, int *out) {
    if (!PyLong_Check(v))
        return 0;
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (x < lo || x > hi)
        return 0;
    *out = (int)x;
    return 1;
}

static inline int to_bits(PyObject *v, u64 *out) { return read_u64(v, 0, out); }

static inline u64 mask_of(int w) { return w >= 64 ? ~0ULL : ((1ULL << w) - 1); }

static inline int ctz_or(u64 x, int w) { return x ? __builtin_ctzll(x) : w; }

/* knownbits.of_interval(lo, hi, w) */
static inline KB interval_bits(i128 lo, i128 hi, int w) {
    KB k = {0, 0};
    if (lo > hi)
        return k;
    if (lo < 0) {
        if (hi >= 0)
            return k;
        lo += (i128)1 << w;
        hi += (i128)1 << w;
        if (lo < 0)
            return k;
    }
    if (hi >> w)
        return k;
    u64 x = (u64)lo ^ (u64)hi;
    int bl = x ? 64 - __builtin_clzll(x) : 0;
    u64 top = ~mask_of(bl) & mask_of(w);
    k.zero = ~(u64)lo & top;
    k.one = (u64)lo & top;
    return k;
}

/* kb.union: a and b together, a alone when they contradict */
static inline KB kb_union(KB a, KB b) {
    if ((a.zero | b.zero) & (a.one | b.one))
        return a;
    KB k = {a.zero | b.zero, a.one | b.one};
    return k;
}

/* knownbits.min_ge / max_le (0 <= end < 2**w); 0 when no value agrees */
static inline int min_ge(u64 lo, u64 zero, u64 one, u64 m, u64 *out) {
    u64 conflict = ((lo & zero) | (~lo & one)) & m;
    if (!conflict) {
        *out = lo;
        return 1;
    }
    int hb = 63 - __builtin_clzll(conflict);
    u64 cands = ~lo & ~zero & m & ~((1ULL << hb) - 1);
    if (!cands)
        return 0;
    u64 low = cands & (~cands + 1);
    *out = (lo & ~((low << 1) - 1)) | low | (one & (low - 1));
    return 1;
}

static inline int max_le(u64 hi, u64 zero, u64 one, u64 m, u64 *out) {
    u64 conflict = ((hi & zero) | (~hi & one)) & m;
    if (!conflict) {
        *out = hi;
        return 1;
    }
    int hb = 63 - __builtin_clzll(conflict);
    u64 cands = hi & ~one & m & ~((1ULL << hb) - 1);
    if (!cands)
        return 0;
    u64 low = cands & (~cands + 1);
    *out = (hi & ~((low << 1) - 1)) | (~zero & (low - 1));
    return 1;
}

/* knownbits.tighten: 1 with the new ends, 0 for None */
static inline int tighten(i128 lo, i128 hi, u64 zero, u64 one, int w, i128 *nlo, i128 *nhi) {
    i128 shift = 0;
    *nlo = lo;
    *nhi = hi;
    if (lo < 0) {
        if (hi >= 0)
            return 1;
        shift = (i128)1 << w;
    }
    i128 ulo = lo + shift, uhi = hi + shift;
    if (ulo < 0 || (uhi >> w))
        return 1;
    u64 m = mask_of(w), a, b;
    if (!min_ge((u64)ulo, zero, one, m, &a) || !max_le((u64)uhi, zero, one, m, &b) || a > b)
        return 0;
    *nlo = (i128)a - shift;
    *nhi = (i128)b - shift;
    return 1;
}

/* interval.known of Range(lo, hi, rz, ro) in iW */
static inline KB range_known(i128 lo, i128 hi, u64 rz, u64 ro, int w) {
    u64 m = mask_of(w);
    KB r = {rz & m, ro & m};
    return kb_union(r, interval_bits(lo, hi, w));
}

/* interval.with_known's arithmetic: Range(*lo, *hi, rz, ro) with the bits k of iW added;
 * 1 with the new ends and masks, 0 when r is kept as it was (no value agrees) */
static inline int range_with_known(i128 *lo, i128 *hi, u64 rz, u64 ro, KB k, int w, KB *out) {
    u64 m = mask_of(w);
    KB a = {k.zero & m, k.one & m}, r = {rz & m, ro & m};
    a = kb_union(a, r);
    KB iv = interval_bits(*lo, *hi, w);
    a = kb_union(a, iv);
    if ((a.zero | a.one) & ~(iv.zero | iv.one)) {
        i128 nlo, nhi;
        if (!tighten(*lo, *hi, a.zero, a.one, w, &nlo, &nhi))
            return 0;
        *lo = nlo;
        *hi = nhi;
        a = kb_union(a, interval_bits(nlo, nhi, w));
    }
    *out = a;
    return 1;
}

/* interval.off_with_known's arithmetic: the offsets [*lo, *hi] whose bits modulo 2**w are
 * known to be ob (interval._off_bits) gain k; their ends tightened when in [0, 2**w) */
static inline KB off_add_known(i128 *lo, i128 *hi, KB ob, KB k, int w) {
    u64 m = mask_of(w);
    KB a = {k.zero & m, k.one & m};
    a = kb_union(a, ob);
    if (*lo >= 0 && *hi <= (i128)m) {
        i128 nlo, nhi;
        if (tighten(*lo, *hi, a.zero, a.one, w, &nlo, &nhi)) {
            *lo = nlo;
            *hi = nhi;
        }
    }
    return a;
}

/* interval._off_bits of Off(_, lo, hi, z, n, kw) modulo 2**w (kw >= 0) */
static inline KB off_bits_of(i128 lo, i128 hi, u64 z, u64 n, long kw, int w) {
    int kmw = kw < w ? (int)kw : w;
    u64 km = kmw == 0 ? 0 : mask_of(kmw);
    KB k = {z & km, n & km};
    if (lo >= 0 && !(hi >> w))
        k = kb_union(k, interval_bits(lo, hi, w));
    return k;
}

/* an Off tuple's ends and interval._off_bits(o, w): 1, or 0 when it cannot be read so */
static inline int read_off(PyObject *off, int w, KB *k, i128 *lo, i128 *hi) {
    u64 z, n;
    int kw;
    if (!PyTuple_Check(off) || PyTuple_GET_SIZE(off) != 6 || !read_small(PyTuple_GET_ITEM(off, 5), 0, INT_MAX, &kw) ||
        !to_bits(PyTuple_GET_ITEM(off, 3), &z) || !to_bits(PyTuple_GET_ITEM(off, 4), &n) ||
        !to_i128(PyTuple_GET_ITEM(off, 1), lo) || !to_i128(PyTuple_GET_ITEM(off, 2), hi))
        return 0;
    *k = off_bits_of(*lo, *hi, z, n, kw, w);
    return 1;
}

/* knownbits.const(c, w) */
static inline KB kb_const(u64 c, int w) {
    u64 m = mask_of(w), u = c & m;
    KB k = {~u & m, u};
    return k;
}

/* knownbits.zext / sext (a, sw, w) */
static inline KB kb_ext(KB a, int sw, int w, int sign_ext) {
    u64 smask = mask_of(sw), high = mask_of(w) & ~smask;
    KB k = {a.zero & smask, a.one & smask};
    if (!sign_ext) {
        k.zero |= high;
        return k;
    }
    u64 sign = 1ULL << (sw - 1);
    if (k.zero & sign)
        k.zero |= high;
    else if (k.one & sign)
        k.one |= high;
    return k;
}

/* knownbits.add_sub(a, b, w, sub): LLVM's computeForAddSub */
static inline KB kb_add_sub(KB a, KB b, int w, int sub) {
    u64 m = mask_of(w), carry_zero = 1, carry_one = 0;
    if (sub) {
        u64 t = b.zero;
        b.zero = b.one;
        b.one = t;
        carry_zero = 0;
        carry_one = 1;
    }
    u64 possible_sum_zero = ((~a.zero & m) + (~b.zero & m) + (1 - carry_zero)) & m;
    u64 possible_sum_one = (a.one + b.one + carry_one) & m;
    u64 carry_known_zero = ~(possible_sum_zero ^ a.zero ^ b.zero) & m;
    u64 carry_known_one = (possible_sum_one ^ a.one ^ b.one) & m;
    u64 known = (a.zero | a.one) & (b.zero | b.one) & (carry_known_zero | carry_known_one);
    KB k = {~possible_sum_zero & known & m, possible_sum_one & known & m};
    return k;
}

/* knownbits.mul(a, b, w), for masks read exactly */
static inline KB kb_mul(KB a, KB b, int w) {
    u64 m = mask_of(w);
    if ((a.zero | a.one) == m && (b.zero | b.one) == m)
        return kb_const(a.one * b.one, w);
    int tz = ctz_or(~a.zero & m, w) + ctz_or(~b.zero & m, w);
    if (tz > w)
        tz = w;
    u64 zero = mask_of(tz), one = 0;
    int ka = ctz_or(~(a.zero | a.one) & m, w), kb = ctz_or(~(b.zero | b.one) & m, w);
    int n = ka < kb ? ka : kb;
    if (n) {
        u64 low = (a.one * b.one) & mask_of(n);
        zero |= ~low & mask_of(n);
        one = low;
    }
    KB k = {zero & m, one & m};
    return k;
}

/* knownbits.shl / lshr / ashr (a, c, w), 0 <= c < 64 */
static inline KB kb_shl(KB a, int c, int w) {
    u64 m = mask_of(w);
    KB k = {((a.zero << c) | mask_of(c)) & m, (a.one << c) & m};
    return k;
}

static inline KB kb_lshr(KB a, int c, int w) {
    u64 m = mask_of(w);
    KB k = {(a.zero >> c) | (~(m >> c) & m), a.one >> c};
    return k;
}

static inline KB kb_ashr(KB a, int c, int w) {
    u64 m = mask_of(w), sign = 1ULL << (w - 1), high = ~(m >> c) & m;
    KB k = {a.zero >> c, a.one >> c};
    if (a.zero & sign)
        k.zero |= high;
    else if (a.one & sign)
        k.one |= high;
    return k;
}

#endif
