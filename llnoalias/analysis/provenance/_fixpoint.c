/* The provenance solver's worklist over a slice (analysis/provenance/fixpoint.py: fixpoint, and
 * one_pass for a slice without loops), compiled, with the transfer of the common kinds
 * done in C.
 *
 * fixpoint(transfer, slice, deps_of, order, back, vals, lds) -> env
 *     fixpoint.fixpoint(transfer, slice, deps_of, order, back), step for step: the same worklist,
 *     the same budget, the same joins, so the same env (a dict in slice order).
 * one_pass(transfer, slice, order, vals, lds) -> env
 *     fixpoint.one_pass: {n: transfer(slice[n], slice[n].ops, env)[0] for n in order}, built in that order.
 *
 * A value's transfer is done here when its kind is gep, cast, binop, cmp, phi, select or
 * freeze and every operand it reads is a LocalRef, a PlainConst, an UndefConst or a
 * GlobalRef whose value is a plain lattice value (bottom, none, unknown or a root): the
 * rules of FunctionAnalysis.transfer for these kinds, value only (the fixpoint never reads
 * the reason). Anything else (a constant expression, an aggregate value, another kind,
 * a malformed operand list, freeze of undef) is handed to transfer(inst, ops, env), whose
 * value is taken, so that the Python method decides every case it alone knows.
 * vals is the function's solved values (read for a name env lacks, as _const reads them),
 * lds the module's LDS roots by name (a GlobalRef's value).
 *
 * fixpoint.fixpoint and fixpoint.one_pass are the reference: tests/analysis/provenance/test_twin_fixpoint.py compares
 * both on every function of every fixture and corpus file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *BOTTOM, *NONE, *UNKNOWN, *join_py, *keep_casts;
static PyTypeObject *LocalT, *PlainT, *UndefT, *GlobalT, *AggT;
static PyObject *s_kind, *s_operands, *s_incoming, *s_flags, *s_name, *s_ops, *s_is_pointer, *s_op, *s_start, *s_len;
static PyObject *k_gep, *k_cast, *k_binop, *k_cmp, *k_phi, *k_select, *k_freeze, *w_add, *w_or, *w_disjoint,
    *w_bitcast;

/* what fast_transfer returns for a value it hands to Python: not an error, not a value
 * (an address no object has; never given to Python) */
static char pass_marker;
#define PASS ((PyObject *)&pass_marker)

static int same_str(PyObject *a, PyObject *b) {
    return a == b || (PyUnicode_Check(a) && PyUnicode_Compare(a, b) == 0);
}

/* The value of one operand (a new reference), PASS for one C does not read, or NULL. */
static PyObject *operand(PyObject *v, PyObject *env, PyObject *vals, PyObject *lds) {
    PyTypeObject *t = Py_TYPE(v);
    PyObject *got;
    if (t == LocalT || t == GlobalT) {
        PyObject *name = PyObject_GetAttr(v, s_name);
        if (name == NULL) return NULL;
        if (t == LocalT) {
            got = PyDict_GetItemWithError(env, name);
            if (got == NULL && !PyErr_Occurred()) got = PyDict_GetItemWithError(vals, name);
        } else {
            got = PyDict_GetItemWithError(lds, name);
        }
        Py_DECREF(name);
        if (got == NULL) {
            if (PyErr_Occurred()) return NULL;
            got = UNKNOWN;
        }
        if (Py_TYPE(got) == AggT) return PASS;
        return Py_NewRef(got);
    }
    if (t == PlainT) return Py_NewRef(NONE);
    if (t == UndefT) return Py_NewRef(BOTTOM);
    return PASS;
}

/* The value of operand k of an (type, value) list, as operand() */
static PyObject *typed(PyObject *list, Py_ssize_t k, PyObject *env, PyObject *vals, PyObject *lds) {
    if (!PyList_Check(list) || k >= PyList_GET_SIZE(list)) return PASS;
    PyObject *tv = PyList_GET_ITEM(list, k);
    if (!PyTuple_Check(tv) || PyTuple_GET_SIZE(tv) != 2) return PASS;
    return operand(PyTuple_GET_ITEM(tv, 1), env, vals, lds);
}

/* join of two plain lattice values (no aggregate): borrowed in, new reference out */
static PyObject *join2(PyObject *a, PyObject *b) {
    if (a == b || b == BOTTOM) return Py_NewRef(a);
    if (a == BOTTOM) return Py_NewRef(b);
    return Py_NewRef(UNKNOWN); /* unknown with anything, two roots, a root and none */
}

/* _generic's step: the running value out (none at first) after reading v */
static PyObject *generic_step(PyObject *out, PyObject *v) {
    if (out == BOTTOM || v == BOTTOM) return BOTTOM;
    return v == NONE ? out : UNKNOWN;
}

/* FunctionAnalysis.transfer's value for the kinds above: a new reference, PASS, or NULL */
static PyObject *fast_transfer(PyObject *ops, PyObject *env, PyObject *vals, PyObject *lds) {
    PyObject *kind = PyObject_GetAttr(ops, s_kind);
    if (kind == NULL) return NULL;
    PyObject *out = PASS, *a = NULL, *b = NULL, *list = NULL, *flags = NULL;
    int phi = same_str(kind, k_phi), gep = !phi && same_str(kind, k_gep), cast = !phi && !gep && same_str(kind, k_cast);
    if (phi || same_str(kind, k_select)) {
        list = PyObject_GetAttr(ops, phi ? s_incoming : s_operands);
        if (list == NULL) goto fail;
        if (!PyList_Check(list)) goto done;
        Py_ssize_t n = PyList_GET_SIZE(list);
        if (!phi && n < 3) goto done;
        PyObject *acc = Py_NewRef(BOTTOM);
        for (Py_ssize_t k = phi ? 0 : 1; k < (phi ? n : 3); k++) {
            PyObject *v = phi ? operand(PyList_GET_ITEM(list, k), env, vals, lds) : typed(list, k, env, vals, lds);
            if (v == NULL || v == PASS) {
                Py_DECREF(acc);
                if (v == NULL) goto fail;
                goto done;
            }
            Py_SETREF(acc, join2(acc, v));
            Py_DECREF(v);
        }
        out = acc;
    } else if (gep || same_str(kind, k_cmp)) {
        list = PyObject_GetAttr(ops, s_operands);
        if (list == NULL) goto fail;
        if (!PyList_Check(list) || PyList_GET_SIZE(list) == 0) goto done;
        Py_ssize_t n = PyList_GET_SIZE(list);
        /* every operand is read first (as the list comprehension does), then the rule */
        PyObject *base = NULL, *rest = NONE;
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *v = typed(list, k, env, vals, lds);
            if (v == NULL || v == PASS) {
                Py_XDECREF(base);
                if (v == NULL) goto fail;
                goto done;
            }
            if (gep && k == 0) {
                base = v;
                continue;
            }
            /* _gep: the first index that is not none decides; _generic: any bottom wins */
            if (gep) {
                if (rest == NONE && v != NONE) rest = v == BOTTOM ? BOTTOM : UNKNOWN;
            } else {
                rest = generic_step(rest, v);
            }
            Py_DECREF(v);
        }
        if (gep) {
            out = rest == NONE ? base : Py_NewRef(rest);
            if (rest != NONE) Py_DECREF(base);
        } else {
            out = Py_NewRef(rest);
        }
    } else if (cast || same_str(kind, k_binop)) {
        flags = PyObject_GetAttr(ops, s_flags);
        if (flags == NULL) goto fail;
        list = PyObject_GetAttr(ops, s_operands);
        if (list == NULL) goto fail;
        if (!PyTuple_Check(flags) || PyTuple_GET_SIZE(flags) == 0) goto done;
        PyObject *op = PyTuple_GET_ITEM(flags, 0);
        a = typed(list, 0, env, vals, lds);
        if (a == NULL) goto fail;
        if (a == PASS) goto done;
        if (cast) {
            int keep = PySet_Contains(keep_casts, op);
            if (keep < 0) goto fail;
            if (!keep && same_str(op, w_bitcast)) {
                PyObject *ty = PyTuple_GET_ITEM(PyList_GET_ITEM(list, 0), 0);
                PyObject *isp = PyObject_GetAttr(ty, s_is_pointer);
                if (isp == NULL) goto fail;
                keep = PyObject_IsTrue(isp);
                Py_DECREF(isp);
                if (keep < 0) goto fail;
            }
            out = keep ? Py_NewRef(a) : Py_NewRef(generic_step(NONE, a));
        } else {
            b = typed(list, 1, env, vals, lds);
            if (b == NULL) goto fail;
            if (b == PASS) goto done;
            int add = same_str(op, w_add);
            if (!add && same_str(op, w_or)) {
                add = PySequence_Contains(flags, w_disjoint);
                if (add < 0) goto fail;
            }
            if (add) { /* _add */
                if (a == BOTTOM || b == BOTTOM) out = Py_NewRef(BOTTOM);
                else if (a == NONE) out = Py_NewRef(b);
                else if (b == NONE) out = Py_NewRef(a);
                else out = Py_NewRef(UNKNOWN);
            } else {
                out = Py_NewRef(generic_step(generic_step(NONE, a), b));
            }
        }
    } else if (same_str(kind, k_freeze)) {
        list = PyObject_GetAttr(ops, s_operands);
        if (list == NULL) goto fail;
        if (!PyList_Check(list) || PyList_GET_SIZE(list) == 0) goto done;
        PyObject *tv = PyList_GET_ITEM(list, 0);
        if (!PyTuple_Check(tv) || PyTuple_GET_SIZE(tv) != 2 || Py_TYPE(PyTuple_GET_ITEM(tv, 1)) == UndefT)
            goto done; /* freeze of undef: the Python rule */
        out = operand(PyTuple_GET_ITEM(tv, 1), env, vals, lds);
        if (out == NULL) goto fail;
    }
done:
    Py_DECREF(kind);
    Py_XDECREF(list);
    Py_XDECREF(flags);
    if (a != PASS) Py_XDECREF(a);
    if (b != PASS) Py_XDECREF(b);
    return out;
fail:
    out = NULL;
    goto done;
}

/* transfer(inst, ops, env)[0] for slice[n]: a new reference or NULL */
static PyObject *value_of(PyObject *transfer, PyObject *inst, PyObject *env, PyObject *vals, PyObject *lds) {
    PyObject *ops = PyObject_GetAttr(inst, s_ops);
    if (ops == NULL) return NULL;
    if (ops == Py_None) {
        Py_DECREF(ops);
        PyErr_SetString(PyExc_AssertionError, "an instruction of the slice was not parsed");
        return NULL;
    }
    PyObject *out = fast_transfer(ops, env, vals, lds);
    if (out == PASS) {
        PyObject *got = PyObject_CallFunctionObjArgs(transfer, inst, ops, env, NULL);
        out = NULL;
        if (got != NULL) {
            if (PyTuple_Check(got) && PyTuple_GET_SIZE(got) >= 1)
                out = Py_NewRef(PyTuple_GET_ITEM(got, 0));
            else
                PyErr_SetString(PyExc_TypeError, "transfer() must return a (value, reason) tuple");
            Py_DECREF(got);
        }
    }
    Py_DECREF(ops);
    return out;
}

static PyObject *slice_inst(PyObject *slice, PyObject *n) {
    PyObject *inst = PyDict_GetItemWithError(slice, n);
    if (inst == NULL && !PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, n);
    return inst;
}

static PyObject *one_pass(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "one_pass() takes 5 arguments");
        return NULL;
    }
    PyObject *transfer = args[0], *slice = args[1], *order = args[2], *vals = args[3], *lds = args[4];
    if (!PyDict_Check(slice) || !PyList_Check(order) || !PyDict_Check(vals) || !PyDict_Check(lds)) {
        PyErr_SetString(PyExc_TypeError, "one_pass(): slice dict, order list, vals dict, lds dict");
        return NULL;
    }
    PyObject *env = PyDict_New();
    if (env == NULL) return NULL;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(order); k++) {
        PyObject *n = PyList_GET_ITEM(order, k);
        PyObject *inst = slice_inst(slice, n);
        if (inst == NULL) goto fail;
        PyObject *v = value_of(transfer, inst, env, vals, lds);
        if (v == NULL) goto fail;
        int err = PyDict_SetItem(env, n, v);
        Py_DECREF(v);
        if (err < 0) goto fail;
    }
    return env;
fail:
    Py_DECREF(env);
    return NULL;
}

/* join(old, new) as provenance's join: in C for plain values, else the Python join */
static PyObject *join_any(PyObject *old, PyObject *new) {
    if (Py_TYPE(old) == AggT || Py_TYPE(new) == AggT) return PyObject_CallFunctionObjArgs(join_py, old, new, NULL);
    return join2(old, new);
}

/* users.get(m) appended with the users of m whose pos is at most i and that are not
 * queued yet (the inner step of fixpoint.fixpoint) */
static int put_back(PyObject *list, PyObject *again, PyObject *queued, PyObject *pos, Py_ssize_t limit) {
    if (list == NULL) return 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(list); k++) {
        PyObject *u = PyList_GET_ITEM(list, k);
        if (pos != NULL) {
            PyObject *p = PyDict_GetItemWithError(pos, u);
            if (p == NULL) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, u);
                return -1;
            }
            Py_ssize_t at = PyLong_AsSsize_t(p);
            if (at == -1 && PyErr_Occurred()) return -1;
            if (at > limit) continue;
        }
        int has = PySet_Contains(queued, u);
        if (has < 0) return -1;
        if (!has && (PySet_Add(queued, u) < 0 || PyList_Append(again, u) < 0)) return -1;
    }
    return 0;
}

static PyObject *fixpoint(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "fixpoint() takes 7 arguments");
        return NULL;
    }
    PyObject *transfer = args[0], *slice = args[1], *deps_of = args[2], *order = args[3], *back = args[4],
             *vals = args[5], *lds = args[6];
    if (!PyDict_Check(slice) || !PyDict_Check(deps_of) || !PyList_Check(order) || !PyList_Check(back) ||
        !PyDict_Check(vals) || !PyDict_Check(lds)) {
        PyErr_SetString(PyExc_TypeError, "fixpoint(): slice dict, deps_of dict, order list, back list, vals dict, "
                                         "lds dict");
        return NULL;
    }
    PyObject *backs = PyDict_New(), *sorted_back = PyList_GetSlice(back, 0, PyList_GET_SIZE(back));
    PyObject *env = NULL, *again = PyList_New(0), *queued = PySet_New(NULL), *users = NULL, *pos = NULL;
    if (backs == NULL || sorted_back == NULL || again == NULL || queued == NULL) goto fail;
    /* the values read going back -> their users, in the order the users entered the slice */
    if (PyList_Sort(sorted_back) < 0) goto fail;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(sorted_back); k++) {
        PyObject *row = PyList_GET_ITEM(sorted_back, k);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 3) {
            PyErr_SetString(PyExc_TypeError, "fixpoint(): back reads are (place, user, value) tuples");
            goto fail;
        }
        PyObject *u = PyTuple_GET_ITEM(row, 1), *dep = PyTuple_GET_ITEM(row, 2);
        PyObject *lst = PyDict_GetItemWithError(backs, dep);
        if (lst == NULL) {
            if (PyErr_Occurred()) goto fail;
            lst = PyList_New(0);
            if (lst == NULL) goto fail;
            int err = PyDict_SetItem(backs, dep, lst);
            Py_DECREF(lst);
            if (err < 0) goto fail;
        }
        Py_ssize_t len = PyList_GET_SIZE(lst);
        if (len > 0) {
            int same = PyObject_RichCompareBool(PyList_GET_ITEM(lst, len - 1), u, Py_EQ);
            if (same < 0) goto fail;
            if (same) continue;
        }
        if (PyList_Append(lst, u) < 0) goto fail;
    }
    env = PyDict_New();
    if (env == NULL) goto fail;
    {
        PyObject *key;
        Py_ssize_t it = 0;
        while (PyDict_Next(slice, &it, &key, NULL))
            if (PyDict_SetItem(env, key, BOTTOM) < 0) goto fail;
    }
    Py_ssize_t norder = PyList_GET_SIZE(order);
    long long budget = 64LL * norder + 1000;
    for (Py_ssize_t i = 0; i < norder; i++) {
        PyObject *n = PyList_GET_ITEM(order, i);
        PyObject *inst = slice_inst(slice, n);
        if (inst == NULL) goto fail;
        PyObject *new = value_of(transfer, inst, env, vals, lds);
        if (new == NULL) goto fail;
        if (new == BOTTOM) {
            Py_DECREF(new);
            continue;
        }
        int err = PyDict_SetItem(env, n, new);
        Py_DECREF(new);
        if (err < 0) goto fail;
        if (--budget < 0) break;
        PyObject *bu = PyDict_GetItemWithError(backs, n);
        if (bu == NULL) {
            if (PyErr_Occurred()) goto fail;
            continue;
        }
        if (put_back(bu, again, queued, NULL, 0) < 0) goto fail;
        if (users == NULL) {
            /* values are put back only at the turns of values read going back, so only
             * users up to the last of these can be: the rest are left out */
            Py_ssize_t last = norder - 1;
            for (;;) {
                int has = PyDict_Contains(backs, PyList_GET_ITEM(order, last));
                if (has < 0) goto fail;
                if (has) break;
                last--;
            }
            pos = PyDict_New();
            users = PyDict_New();
            if (pos == NULL || users == NULL) goto fail;
            for (Py_ssize_t k = 0; k <= last; k++) {
                PyObject *at = PyLong_FromSsize_t(k);
                if (at == NULL) goto fail;
                err = PyDict_SetItem(pos, PyList_GET_ITEM(order, k), at);
                Py_DECREF(at);
                if (err < 0) goto fail;
            }
            PyObject *m, *deps;
            Py_ssize_t it = 0;
            while (PyDict_Next(deps_of, &it, &m, &deps)) {
                int has = PyDict_Contains(pos, m);
                if (has < 0) goto fail;
                if (!has) continue;
                if (!PyList_Check(deps)) {
                    PyErr_SetString(PyExc_TypeError, "fixpoint(): deps_of holds lists");
                    goto fail;
                }
                for (Py_ssize_t k = 0; k < PyList_GET_SIZE(deps); k++) {
                    PyObject *dep = PyList_GET_ITEM(deps, k);
                    PyObject *lst = PyDict_GetItemWithError(users, dep);
                    if (lst == NULL) {
                        if (PyErr_Occurred()) goto fail;
                        lst = PyList_New(0);
                        if (lst == NULL) goto fail;
                        err = PyDict_SetItem(users, dep, lst);
                        Py_DECREF(lst);
                        if (err < 0) goto fail;
                    }
                    if (PyList_Append(lst, m) < 0) goto fail;
                }
            }
        }
        while (PyList_GET_SIZE(again) > 0) {
            Py_ssize_t top = PyList_GET_SIZE(again) - 1;
            PyObject *m = Py_NewRef(PyList_GET_ITEM(again, top));
            if (PyList_SetSlice(again, top, top + 1, NULL) < 0 || PySet_Discard(queued, m) < 0) {
                Py_DECREF(m);
                goto fail;
            }
            PyObject *minst = slice_inst(slice, m);
            PyObject *got = minst == NULL ? NULL : value_of(transfer, minst, env, vals, lds);
            if (got == NULL) {
                Py_DECREF(m);
                goto fail;
            }
            PyObject *old = PyDict_GetItemWithError(env, m); /* borrowed: env holds it */
            if (old == NULL) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, m);
                Py_DECREF(got);
                Py_DECREF(m);
                goto fail;
            }
            if (got == old) {
                Py_DECREF(got);
                Py_DECREF(m);
                continue;
            }
            PyObject *joined = join_any(old, got);
            Py_DECREF(got);
            if (joined == NULL) {
                Py_DECREF(m);
                goto fail;
            }
            int unchanged = joined == old;
            if (!unchanged && Py_TYPE(joined) == AggT) {
                unchanged = PyObject_RichCompareBool(joined, old, Py_EQ);
                if (unchanged < 0) {
                    Py_DECREF(joined);
                    Py_DECREF(m);
                    goto fail;
                }
            }
            if (unchanged) {
                Py_DECREF(joined);
                Py_DECREF(m);
                continue;
            }
            err = PyDict_SetItem(env, m, joined);
            Py_DECREF(joined);
            if (err < 0) {
                Py_DECREF(m);
                goto fail;
            }
            if (--budget < 0) {
                Py_DECREF(m);
                break;
            }
            PyObject *us = PyDict_GetItemWithError(users, m);
            Py_DECREF(m);
            if (us == NULL && PyErr_Occurred()) goto fail;
            if (put_back(us, again, queued, pos, i) < 0) goto fail;
        }
        if (budget < 0) break;
    }
    if (budget < 0) {
        /* cannot happen on a finite lattice; give up soundly if it ever does */
        PyObject *key;
        Py_ssize_t it = 0;
        while (PyDict_Next(slice, &it, &key, NULL))
            if (PyDict_SetItem(env, key, UNKNOWN) < 0) goto fail;
    }
    Py_DECREF(backs);
    Py_DECREF(sorted_back);
    Py_DECREF(again);
    Py_DECREF(queued);
    Py_XDECREF(users);
    Py_XDECREF(pos);
    return env;
fail:
    Py_XDECREF(backs);
    Py_XDECREF(sorted_back);
    Py_XDECREF(env);
    Py_XDECREF(again);
    Py_XDECREF(queued);
    Py_XDECREF(users);
    Py_XDECREF(pos);
    return NULL;
}

/* ------------------------------------------------------------------ the walk */

/* The names a value reads (solver._walk's common case): the LocalRefs of ``seq`` (items
 * themselves, or the second of (type, value) pairs with ``pairs``) whose name is not in
 * vals, last first; or reads(iops) when one is a constant expression or aggregate value
 * (of ``special``, a tuple of types). A new list, or NULL. */
static PyObject *walk_deps(PyObject *seq, int pairs, PyObject *vals, PyObject *special, PyObject *reads,
                           PyObject *iops) {
    PyObject *fast = PySequence_Fast(seq, "operands are not a sequence");
    if (fast == NULL) return NULL;
    PyObject *deps = PyList_New(0);
    if (deps == NULL) goto fail;
    for (Py_ssize_t k = PySequence_Fast_GET_SIZE(fast) - 1; k >= 0; k--) {
        PyObject *v = PySequence_Fast_GET_ITEM(fast, k);
        if (pairs) {
            if (!PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 2) {
                PyErr_SetString(PyExc_ValueError, "an operand is not a (type, value) pair");
                goto fail;
            }
            v = PyTuple_GET_ITEM(v, 1);
        }
        if (Py_TYPE(v) == LocalT) {
            PyObject *name = PyObject_GetAttr(v, s_name);
            if (name == NULL) goto fail;
            int in = PyDict_Contains(vals, name);
            if (in == 0 && PyList_Append(deps, name) < 0) in = -1;
            Py_DECREF(name);
            if (in < 0) goto fail;
        } else {
            int sp = PyObject_IsInstance(v, special);
            if (sp < 0) goto fail;
            if (sp) {
                Py_DECREF(deps);
                Py_DECREF(fast);
                return PyObject_CallOneArg(reads, iops);
            }
        }
    }
    Py_DECREF(fast);
    return deps;
fail:
    Py_XDECREF(deps);
    Py_DECREF(fast);
    return NULL;
}

typedef struct {
    PyObject *name; /* borrowed from slice (its key) */
    PyObject *deps; /* borrowed from deps_of */
    Py_ssize_t next;
} Frame;

/* The operands ``parse`` keeps for ``inst``'s text in ``cache`` (operands.parse's memo by the
 * text from the opcode on, ``text[start + _op:start + _len]``), read in place: on a hit
 * ``inst.ops`` is set to them and a new reference returned, as parse does; NULL with no
 * exception on a miss (or an instruction with no opcode position): parse answers. */
static PyObject *cached_ops(PyObject *inst, PyObject *text, PyObject *cache) {
    PyObject *v = PyObject_GetAttr(inst, s_op);
    if (v == NULL) return NULL;
    Py_ssize_t op = PyLong_AsSsize_t(v), start, len;
    Py_DECREF(v);
    if (op == -1 && PyErr_Occurred()) return NULL;
    if (op < 0) return NULL;
    if ((v = PyObject_GetAttr(inst, s_start)) == NULL) return NULL;
    start = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    if (start == -1 && PyErr_Occurred()) return NULL;
    if ((v = PyObject_GetAttr(inst, s_len)) == NULL) return NULL;
    len = PyLong_AsSsize_t(v);
    Py_DECREF(v);
    if (len == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t lo = start + op, hi = start + len, size = PyUnicode_GET_LENGTH(text);
    if (lo < 0 || hi < 0) return NULL; /* a slice from the end: parse's own */
    if (hi > size) hi = size;
    if (lo > hi) lo = hi;
    PyObject *key = PyUnicode_Substring(text, lo, hi);
    if (key == NULL) return NULL;
    PyObject *ops = PyDict_GetItemWithError(cache, key);
    Py_DECREF(key);
    if (ops == NULL || ops == Py_None) return NULL;
    Py_INCREF(ops);
    if (PyObject_SetAttr(inst, s_ops, ops) < 0) {
        Py_DECREF(ops);
        return NULL;
    }
    return ops;
}

/* walk(todo, by_name, vals, mod, parse, reads, no_deps, special[, text, ops_cache]) -> (slice,
 * deps_of, order, back): solver._walk step for step (the Python function is the reference);
 * ``reads(iops)`` is its ``_reads`` for the function, ``no_deps`` blame.NO_DEPS as a dict
 * (kind -> whether its reads are ``reads``'s: a load), ``special`` the tuple (ConstExpr,
 * AggregateConst); ``text`` and ``ops_cache``, when ``parse`` is operands.parse: the module's
 * text and parse's memo of operands by text (``cached_ops``: a hit costs no call of parse). */
static PyObject *walk(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 8 && nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "walk takes 8 or 10 arguments");
        return NULL;
    }
    PyObject *todo = args[0], *by_name = args[1], *vals = args[2], *mod = args[3], *parse = args[4],
             *reads = args[5], *no_deps = args[6], *special = args[7];
    PyObject *text = nargs == 10 ? args[8] : NULL, *ops_cache = nargs == 10 ? args[9] : NULL;
    if (text != NULL && (!PyUnicode_Check(text) || !PyDict_Check(ops_cache))) text = ops_cache = NULL;
    PyObject *slice = PyDict_New(), *deps_of = PyDict_New(), *order = PyList_New(0), *back = PyList_New(0),
             *onstack = PyDict_New(), *todo_fast = NULL, *out = NULL;
    Frame *stack = NULL;
    Py_ssize_t depth = 0, cap = 0;
    if (slice == NULL || deps_of == NULL || order == NULL || back == NULL || onstack == NULL) goto done;
    if (!PyDict_Check(by_name) || !PyDict_Check(vals) || !PyDict_Check(no_deps)) {
        PyErr_SetString(PyExc_TypeError, "by_name, vals and no_deps must be dicts");
        goto done;
    }
    todo_fast = PySequence_Fast(todo, "todo is not a sequence");
    if (todo_fast == NULL) goto done;
    for (Py_ssize_t t = 0; t < PySequence_Fast_GET_SIZE(todo_fast); t++) {
        PyObject *n = PySequence_Fast_GET_ITEM(todo_fast, t);
        int seen = PyDict_Contains(slice, n);
        if (seen < 0) goto done;
        if (seen) continue;
        for (;;) {
            /* enter n: note what it reads */
            PyObject *inst = PyDict_GetItemWithError(by_name, n);
            if (inst == NULL) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, n);
                goto done;
            }
            PyObject *place = PyLong_FromSsize_t(PyDict_GET_SIZE(slice));
            if (place == NULL) goto done;
            int e = PyDict_SetItem(onstack, n, place);
            Py_DECREF(place);
            if (e < 0 || PyDict_SetItem(slice, n, inst) < 0) goto done;
            PyObject *iops = PyObject_GetAttr(inst, s_ops);
            if (iops == NULL) goto done;
            if (iops == Py_None) {
                Py_DECREF(iops);
                iops = text != NULL ? cached_ops(inst, text, ops_cache) : NULL;
                if (iops == NULL && PyErr_Occurred()) goto done;
                if (iops == NULL) iops = PyObject_CallFunctionObjArgs(parse, mod, inst, NULL);
                if (iops == NULL) goto done;
            }
            PyObject *kind = PyObject_GetAttr(iops, s_kind), *deps = NULL;
            if (kind == NULL) {
                Py_DECREF(iops);
                goto done;
            }
            if (same_str(kind, k_phi)) {
                PyObject *inc = PyObject_GetAttr(iops, s_incoming);
                if (inc != NULL) {
                    deps = walk_deps(inc, 0, vals, special, reads, iops);
                    Py_DECREF(inc);
                }
            } else {
                /* no_deps: the kinds that read no operand, each with whether it reads what
                 * ``reads`` says (a load of a forwarded stack slot) */
                PyObject *nd = PyDict_GetItemWithError(no_deps, kind);
                if (nd == NULL && !PyErr_Occurred()) {
                    PyObject *opl = PyObject_GetAttr(iops, s_operands);
                    if (opl != NULL) {
                        deps = walk_deps(opl, 1, vals, special, reads, iops);
                        Py_DECREF(opl);
                    }
                } else if (nd != NULL) {
                    int r = PyObject_IsTrue(nd);
                    deps = r < 0 ? NULL : r ? PyObject_CallOneArg(reads, iops) : PyList_New(0);
                }
            }
            Py_DECREF(kind);
            Py_DECREF(iops);
            if (deps == NULL) goto done;
            if (!PyList_Check(deps)) {
                PyObject *l = PySequence_List(deps);
                Py_DECREF(deps);
                if (l == NULL) goto done;
                deps = l;
            }
            e = PyDict_SetItem(deps_of, n, deps);
            Py_DECREF(deps); /* deps_of holds it */
            if (e < 0) goto done;
            /* n is a key of slice: the frame borrows it (and deps from deps_of) */
            if (depth == cap) {
                Py_ssize_t ncap = cap ? cap * 2 : 64;
                Frame *ns = PyMem_Realloc(stack, (size_t)ncap * sizeof(Frame));
                if (ns == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                stack = ns;
                cap = ncap;
            }
            /* the frame of n on top (popped again when it is left) */
            stack[depth].name = n;
            stack[depth].deps = deps;
            stack[depth].next = 0;
            depth++;
            /* go down to the first value it reads not entered yet, or leave it and go on
             * with the value that read it */
            PyObject *down = NULL;
            while (depth > 0) {
                Frame *f = &stack[depth - 1];
                while (f->next < PyList_GET_SIZE(f->deps)) {
                    PyObject *dep = PyList_GET_ITEM(f->deps, f->next);
                    f->next++;
                    int in_slice = PyDict_Contains(slice, dep);
                    if (in_slice < 0) goto done;
                    if (!in_slice) {
                        int named = PyDict_Contains(by_name, dep);
                        if (named < 0) goto done;
                        if (named) {
                            down = dep;
                            break;
                        }
                    } else {
                        PyObject *at = PyDict_GetItemWithError(onstack, dep);
                        if (at == NULL && PyErr_Occurred()) goto done;
                        if (at != NULL) {
                            PyObject *me = PyDict_GetItemWithError(onstack, f->name);
                            if (me == NULL) {
                                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, f->name);
                                goto done;
                            }
                            PyObject *edge = PyTuple_Pack(3, me, f->name, dep);
                            if (edge == NULL) goto done;
                            e = PyList_Append(back, edge);
                            Py_DECREF(edge);
                            if (e < 0) goto done;
                        }
                    }
                }
                if (down != NULL) break;
                /* every value it reads entered: leave it */
                if (PyDict_DelItem(onstack, f->name) < 0 || PyList_Append(order, f->name) < 0) goto done;
                depth--;
            }
            if (down == NULL) break; /* the stack is empty: this top is done */
            n = down;
        }
    }
    out = PyTuple_Pack(4, slice, deps_of, order, back);
done:
    PyMem_Free(stack);
    Py_XDECREF(todo_fast);
    Py_XDECREF(slice);
    Py_XDECREF(deps_of);
    Py_XDECREF(order);
    Py_XDECREF(back);
    Py_XDECREF(onstack);
    return out;
}

/* init(BOTTOM, NONE, UNKNOWN, join, KEEP_CASTS, LocalRef, PlainConst, UndefConst, GlobalRef, Agg) */
static PyObject *init(PyObject *self, PyObject *args) {
    PyObject *b, *n, *u, *j, *kc, *lt, *pt, *ut, *gt, *at;
    if (!PyArg_ParseTuple(args, "OOOOO!O!O!O!O!O!", &b, &n, &u, &j, &PySet_Type, &kc, &PyType_Type, &lt, &PyType_Type,
                          &pt, &PyType_Type, &ut, &PyType_Type, &gt, &PyType_Type, &at))
        return NULL;
    Py_XSETREF(BOTTOM, Py_NewRef(b));
    Py_XSETREF(NONE, Py_NewRef(n));
    Py_XSETREF(UNKNOWN, Py_NewRef(u));
    Py_XSETREF(join_py, Py_NewRef(j));
    Py_XSETREF(keep_casts, Py_NewRef(kc));
    Py_XSETREF(LocalT, (PyTypeObject *)Py_NewRef(lt));
    Py_XSETREF(PlainT, (PyTypeObject *)Py_NewRef(pt));
    Py_XSETREF(UndefT, (PyTypeObject *)Py_NewRef(ut));
    Py_XSETREF(GlobalT, (PyTypeObject *)Py_NewRef(gt));
    Py_XSETREF(AggT, (PyTypeObject *)Py_NewRef(at));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fixpoint", (PyCFunction)(void (*)(void))fixpoint, METH_FASTCALL,
     "fixpoint(transfer, slice, deps_of, order, back, vals, lds) -> env (fixpoint.fixpoint)"},
    {"one_pass", (PyCFunction)(void (*)(void))one_pass, METH_FASTCALL,
     "one_pass(transfer, slice, order, vals, lds) -> env (a loop-free slice in one pass)"},
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL,
     "walk(todo, by_name, vals, mod, parse, reads, no_deps, special) -> (slice, deps_of, order, back) (solver._walk)"},
    {"init", init, METH_VARARGS,
     "init(BOTTOM, NONE, UNKNOWN, join, KEEP_CASTS, LocalRef, PlainConst, UndefConst, GlobalRef, Agg)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fixpoint",
                                    "The provenance solver's fixpoint and transfer, compiled.", -1, methods};

static int intern(PyObject **slot, const char *s) {
    *slot = PyUnicode_InternFromString(s);
    return *slot == NULL ? -1 : 0;
}

PyMODINIT_FUNC PyInit__fixpoint(void) {
    if (intern(&s_kind, "kind") || intern(&s_operands, "operands") || intern(&s_incoming, "incoming") ||
        intern(&s_flags, "flags") || intern(&s_name, "name") || intern(&s_ops, "ops") ||
        intern(&s_is_pointer, "is_pointer") || intern(&s_op, "_op") || intern(&s_start, "start") ||
        intern(&s_len, "_len") || intern(&k_gep, "gep") || intern(&k_cast, "cast") ||
        intern(&k_binop, "binop") || intern(&k_cmp, "cmp") || intern(&k_phi, "phi") || intern(&k_select, "select") ||
        intern(&k_freeze, "freeze") || intern(&w_add, "add") || intern(&w_or, "or") ||
        intern(&w_disjoint, "disjoint") || intern(&w_bitcast, "bitcast"))
        return NULL;
    return PyModule_Create(&module);
}
