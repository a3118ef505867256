/* The provenance solver's slice walk (provenance._walk), compiled.
 *
 * walk(todo, by_name, vals, parse, mod, local_ref, no_deps, slow_deps, forwarding, cache, text)
 *     -> (slice, deps_of, order, back)
 *
 * Enters the backward slice of the names in todo depth first, exactly as _walk does: an
 * instruction's reads are the local names among its operands (the phi's incoming values),
 * last first, less those in vals; its place in the slice is the order it was entered; it
 * goes to order once everything it reads has; a read of a value still on the walk's
 * stack is a back read (place of the user, user, value read). What the common case does
 * not cover is asked of slow_deps(ops), which returns the reads as a list: a kind in
 * no_deps when forwarding is true (a load may read a forwarded stack slot; without one it
 * reads nothing, as every other kind in no_deps), or an operand that is a constant
 * expression or an aggregate (anything not a LocalRef that is not a plain value, a
 * global or undef is handed over the same way, the pure walk's isinstance test being
 * done there). parse(mod, inst) parses an instruction whose ops are None; when cache (the
 * module's ops_cache) holds the instruction's text from its opcode on (text, the module's
 * source), the Ops found there are taken without the call, as parse would take them.
 *
 * provenance._walk is the reference: tests/test_cslice.py compares the two on every
 * function of every fixture and corpus file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *s_ops, *s_kind, *s_incoming, *s_operands, *s_name, *s_phi, *s_op, *s_start, *s_len;
static PyTypeObject *PlainT, *GlobalT, *UndefT, *UnknownT;

typedef struct {
    PyObject *name; /* borrowed: a key of slice */
    PyObject *deps; /* borrowed: a value of deps_of */
    Py_ssize_t next;
} Frame;

/* The reads of one instruction: a new list, or NULL with an exception set. */
static PyObject *reads_of(PyObject *ops, PyObject *vals, PyObject *local_ref, PyObject *no_deps,
                          PyObject *slow_deps, int forwarding) {
    PyObject *kind = PyObject_GetAttr(ops, s_kind);
    if (kind == NULL) return NULL;
    int is_phi = PyUnicode_Check(kind) && PyUnicode_Compare(kind, s_phi) == 0;
    if (!is_phi) {
        int nd = PySet_Contains(no_deps, kind);
        if (nd != 0) {
            Py_DECREF(kind);
            if (nd < 0) return NULL;
            if (!forwarding) return PyList_New(0);
            return PyObject_CallOneArg(slow_deps, ops);
        }
    }
    Py_DECREF(kind);
    PyObject *seq = PyObject_GetAttr(ops, is_phi ? s_incoming : s_operands);
    if (seq == NULL) return NULL;
    PyObject *fast = PySequence_Fast(seq, "operands are not a sequence");
    Py_DECREF(seq);
    if (fast == NULL) return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        Py_DECREF(fast);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject **items = PySequence_Fast_ITEMS(fast);
    for (Py_ssize_t k = n - 1; k >= 0; k--) {
        PyObject *v = items[k];
        if (!is_phi) {
            /* (type, value) */
            if (!PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 2) goto slow;
            v = PyTuple_GET_ITEM(v, 1);
        }
        if ((PyObject *)Py_TYPE(v) == local_ref) {
            PyObject *name = PyObject_GetAttr(v, s_name);
            if (name == NULL) goto fail;
            int has = PyDict_Contains(vals, name);
            if (has < 0 || (has == 0 && PyList_Append(out, name) < 0)) {
                Py_DECREF(name);
                goto fail;
            }
            Py_DECREF(name);
        } else if (Py_TYPE(v) != PlainT && Py_TYPE(v) != GlobalT && Py_TYPE(v) != UndefT && Py_TYPE(v) != UnknownT) {
            goto slow; /* a constant expression, an aggregate, or something unforeseen */
        }
    }
    Py_DECREF(fast);
    return out;
slow:
    Py_DECREF(fast);
    Py_DECREF(out);
    return PyObject_CallOneArg(slow_deps, ops);
fail:
    Py_DECREF(fast);
    Py_DECREF(out);
    return NULL;
}

/* operands.parse's cache hit, without calling it: the Ops that cache holds for the
 * instruction's text from its opcode on (a new reference), or NULL (an exception set, or
 * none when the instruction has no opcode offset or the text is not cached) */
static PyObject *cached_ops(PyObject *inst, PyObject *cache, PyObject *text) {
    Py_ssize_t v[3];
    PyObject *names[3] = {s_op, s_start, s_len};
    for (int k = 0; k < 3; k++) {
        PyObject *o = PyObject_GetAttr(inst, names[k]);
        if (o == NULL) return NULL;
        v[k] = PyLong_AsSsize_t(o);
        Py_DECREF(o);
        if (v[k] == -1 && PyErr_Occurred()) return NULL;
    }
    if (v[0] < 0) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), a = v[1] + v[0], b = v[1] + v[2];
    if (a < 0 || b > n || a > b) return NULL; /* what a slice would clamp: let parse do it */
    PyObject *key = PyUnicode_Substring(text, a, b);
    if (key == NULL) return NULL;
    PyObject *ops = PyDict_GetItemWithError(cache, key);
    Py_DECREF(key);
    if (ops == NULL) return NULL;
    if (PyObject_SetAttr(inst, s_ops, ops) < 0) return NULL;
    return Py_NewRef(ops);
}

static PyObject *walk(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "walk() takes 11 arguments");
        return NULL;
    }
    PyObject *cache = args[9], *text = args[10];
    if (!PyDict_Check(cache) || !PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "walk(): cache dict, text str");
        return NULL;
    }
    PyObject *todo = args[0], *by_name = args[1], *vals = args[2], *parse = args[3], *mod = args[4],
             *local_ref = args[5], *no_deps = args[6], *slow_deps = args[7];
    int forwarding = PyObject_IsTrue(args[8]);
    if (forwarding < 0) return NULL;
    if (!PyList_Check(todo) || !PyDict_Check(by_name) || !PyDict_Check(vals) || !PyAnySet_Check(no_deps)) {
        PyErr_SetString(PyExc_TypeError, "walk(): todo list, by_name dict, vals dict, no_deps set");
        return NULL;
    }
    PyObject *slice = PyDict_New(), *deps_of = PyDict_New(), *order = PyList_New(0), *back = PyList_New(0),
             *onstack = PyDict_New();
    Frame *stack = NULL;
    Py_ssize_t depth = 0, cap = 0;
    if (slice == NULL || deps_of == NULL || order == NULL || back == NULL || onstack == NULL) goto fail;
    for (Py_ssize_t t = 0; t < PyList_GET_SIZE(todo); t++) {
        PyObject *n = PyList_GET_ITEM(todo, t);
        int in_slice = PyDict_Contains(slice, n);
        if (in_slice < 0) goto fail;
        if (in_slice) continue;
        for (;;) {
            /* enter n: note what it reads */
            PyObject *inst = PyDict_GetItemWithError(by_name, n); /* borrowed */
            if (inst == NULL) {
                if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, n);
                goto fail;
            }
            PyObject *place = PyLong_FromSsize_t(PyDict_GET_SIZE(slice));
            if (place == NULL) goto fail;
            int err = PyDict_SetItem(onstack, n, place);
            Py_DECREF(place);
            if (err < 0 || PyDict_SetItem(slice, n, inst) < 0) goto fail;
            PyObject *ops = PyObject_GetAttr(inst, s_ops);
            if (ops == NULL) goto fail;
            if (ops == Py_None) {
                Py_DECREF(ops);
                ops = cached_ops(inst, cache, text);
                if (ops == NULL) {
                    if (PyErr_Occurred()) goto fail;
                    ops = PyObject_CallFunctionObjArgs(parse, mod, inst, NULL);
                    if (ops == NULL) goto fail;
                }
            }
            PyObject *deps = reads_of(ops, vals, local_ref, no_deps, slow_deps, forwarding);
            Py_DECREF(ops);
            if (deps == NULL) goto fail;
            if (!PyList_Check(deps)) {
                Py_DECREF(deps);
                PyErr_SetString(PyExc_TypeError, "walk(): slow_deps must return a list");
                goto fail;
            }
            err = PyDict_SetItem(deps_of, n, deps);
            Py_DECREF(deps);
            if (err < 0) goto fail;
            /* n and deps stay alive as a key and a value of the dicts: borrowed from here */
            Py_ssize_t next = 0;
            PyObject *enter = NULL;
            for (;;) {
                /* go down to the first value it reads not entered yet, or leave it and go
                 * on with the value that read it */
                while (next < PyList_GET_SIZE(deps)) {
                    PyObject *dep = PyList_GET_ITEM(deps, next++);
                    int has = PyDict_Contains(slice, dep);
                    if (has < 0) goto fail;
                    if (!has) {
                        has = PyDict_Contains(by_name, dep);
                        if (has < 0) goto fail;
                        if (has) {
                            enter = dep;
                            break;
                        }
                        continue;
                    }
                    PyObject *on = PyDict_GetItemWithError(onstack, dep);
                    if (on == NULL) {
                        if (PyErr_Occurred()) goto fail;
                        continue;
                    }
                    PyObject *mine = PyDict_GetItemWithError(onstack, n);
                    if (mine == NULL) {
                        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, n);
                        goto fail;
                    }
                    PyObject *row = PyTuple_Pack(3, mine, n, dep);
                    if (row == NULL) goto fail;
                    err = PyList_Append(back, row);
                    Py_DECREF(row);
                    if (err < 0) goto fail;
                }
                if (enter != NULL) break;
                if (PyDict_DelItem(onstack, n) < 0 || PyList_Append(order, n) < 0) goto fail;
                if (depth == 0) break;
                depth--;
                n = stack[depth].name;
                deps = stack[depth].deps;
                next = stack[depth].next;
            }
            if (enter == NULL) break; /* the stack is empty: on with the next of todo */
            if (depth == cap) {
                Py_ssize_t ncap = cap ? cap * 2 : 64;
                Frame *grown = PyMem_Realloc(stack, (size_t)ncap * sizeof(Frame));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto fail;
                }
                stack = grown;
                cap = ncap;
            }
            stack[depth].name = n;
            stack[depth].deps = deps;
            stack[depth].next = next;
            depth++;
            n = enter;
        }
    }
    PyMem_Free(stack);
    Py_DECREF(onstack);
    return Py_BuildValue("(NNNN)", slice, deps_of, order, back);
fail:
    PyMem_Free(stack);
    Py_XDECREF(slice);
    Py_XDECREF(deps_of);
    Py_XDECREF(order);
    Py_XDECREF(back);
    Py_XDECREF(onstack);
    return NULL;
}

/* init(PlainConst, GlobalRef, UndefConst, UnknownValue): the value classes that are read
 * as no local name (every other class but LocalRef goes to slow_deps) */
static PyObject *init(PyObject *self, PyObject *args) {
    PyObject *p, *g, *u, *k;
    if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyType_Type, &p, &PyType_Type, &g, &PyType_Type, &u, &PyType_Type, &k))
        return NULL;
    Py_XSETREF(PlainT, (PyTypeObject *)Py_NewRef(p));
    Py_XSETREF(GlobalT, (PyTypeObject *)Py_NewRef(g));
    Py_XSETREF(UndefT, (PyTypeObject *)Py_NewRef(u));
    Py_XSETREF(UnknownT, (PyTypeObject *)Py_NewRef(k));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL,
     "walk(todo, by_name, vals, parse, mod, LocalRef, no_deps, slow_deps, forwarding, cache, text) -> "
     "(slice, deps_of, order, back)"},
    {"init", init, METH_VARARGS, "init(PlainConst, GlobalRef, UndefConst, UnknownValue)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cslice",
                                    "The provenance solver's slice walk, compiled.", -1, methods};

PyMODINIT_FUNC PyInit__cslice(void) {
    s_ops = PyUnicode_InternFromString("ops");
    s_kind = PyUnicode_InternFromString("kind");
    s_incoming = PyUnicode_InternFromString("incoming");
    s_operands = PyUnicode_InternFromString("operands");
    s_name = PyUnicode_InternFromString("name");
    s_phi = PyUnicode_InternFromString("phi");
    s_op = PyUnicode_InternFromString("_op");
    s_start = PyUnicode_InternFromString("start");
    s_len = PyUnicode_InternFromString("_len");
    if (s_ops == NULL || s_kind == NULL || s_incoming == NULL || s_operands == NULL || s_name == NULL || s_phi == NULL ||
        s_op == NULL || s_start == NULL || s_len == NULL)
        return NULL;
    return PyModule_Create(&module);
}
