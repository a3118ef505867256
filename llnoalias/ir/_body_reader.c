/* The hot loop of the function body reader (llnoalias/ir/body_reader.py), compiled.
 *
 * body_rows() does what BodyReader._body_fast does with the rows of _BODY_ROW_RE, for the
 * rows it can finish alone: blank and comment lines, unquoted labels and one-line
 * instructions without a ';'. It stops at a debug record or any other line and hands
 * that row back to Python, which reads it as before and calls again from the next line
 * it has not read. undefined_refs() is _PLAIN_REF_RE.findall as a set, less the defined
 * names. Both read the str in place (any PEP 393 kind); positions are code points, as in Python.
 * line_starts() is the line index; splice() writes an ASCII module's edits into its text
 * (Editor.encoded).
 *
 * The pure-Python reader is the reference: tests/ir/test_twin_body_reader.py compares the two on every
 * fixture and corpus file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#define RD(i) PyUnicode_READ(kind, data, (i))

/* METH_FASTCALL argument readers, checking as PyArg_ParseTuple's "U", "n", "L", "p" and
 * "O!" do (the functions called once per function or per body stop take them positionally:
 * no argument tuple is made and no format string read per call). Each returns -1 with the
 * error set. */
static int nargs_ok(const char *name, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi) {
    if (nargs >= lo && nargs <= hi) return 0;
    PyErr_Format(PyExc_TypeError, "%s: %zd arguments given, %zd to %zd taken", name, nargs, lo, hi);
    return -1;
}
static int arg_str(PyObject *o, PyObject **out) {
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "a str is required, not %.50s", Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = o;
    return 0;
}
static int arg_typed(PyObject *o, PyTypeObject *type, PyObject **out) {
    if (!PyObject_TypeCheck(o, type)) {
        PyErr_Format(PyExc_TypeError, "%.50s is required, not %.50s", type->tp_name, Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = o;
    return 0;
}
static int arg_ssize(PyObject *o, Py_ssize_t *out) {
    Py_ssize_t v = PyNumber_AsSsize_t(o, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}
static int arg_longlong(PyObject *o, long long *out) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}
static int arg_bool(PyObject *o, int *out) {
    int v = PyObject_IsTrue(o);
    if (v < 0) return -1;
    *out = v;
    return 0;
}

static int is_name_char(Py_UCS4 c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '$' || c == '.' || c == '_';
}

static int is_op_start(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || c == '_'; }
static int is_op_char(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'); }

/* Does the word [s, e) equal the ASCII string w? */
static int word_is(int kind, const void *data, Py_ssize_t s, Py_ssize_t e, const char *w) {
    Py_ssize_t n = (Py_ssize_t)strlen(w);
    if (e - s != n) return 0;
    for (Py_ssize_t k = 0; k < n; k++)
        if (RD(s + k) != (Py_UCS4)(unsigned char)w[k]) return 0;
    return 1;
}

/* Does [s, e) end with the ASCII string w? */
static int ends_with(int kind, const void *data, Py_ssize_t s, Py_ssize_t e, const char *w) {
    Py_ssize_t n = (Py_ssize_t)strlen(w);
    if (e - s < n) return 0;
    return word_is(kind, data, e - n, e, w);
}

/* The opcode at p in [p, nl): its end, or -1 when there is none (the lookahead and the
 * define/declare lookbehind of _BODY_ROW_RE). */
static Py_ssize_t op_at(int kind, const void *data, Py_ssize_t p, Py_ssize_t nl) {
    if (p >= nl || !is_op_start(RD(p))) return -1;
    Py_ssize_t q = p + 1;
    while (q < nl && is_op_char(RD(q))) q++;
    if (q < nl) {
        Py_UCS4 c = RD(q);
        if (!(c == ' ' || c == '\t' || c == '\r' || c == ',' || c == '(')) return -1;
    } /* q == nl: the '\n' */
    if (ends_with(kind, data, p, q, "define") || ends_with(kind, data, p, q, "declare")) return -1;
    return q;
}

/* The end of the tail after an opcode ending at q: -1 when the line cannot be an
 * instruction row (a ';', a string that goes on to the next line, or its last character
 * opens a bracket or is a comma). */
static Py_ssize_t tail_end(int kind, const void *data, Py_ssize_t q, Py_ssize_t nl) {
    int quotes = 0;
    for (Py_ssize_t k = q; k < nl; k++) {
        Py_UCS4 c = RD(k);
        if (c == ';') return -1;
        if (c == '"') quotes ^= 1;
    }
    if (quotes) return -1;
    Py_ssize_t e = nl;
    while (e > q) {
        Py_UCS4 c = RD(e - 1);
        if (c == ' ' || c == '\t' || c == '\r') e--;
        else break;
    }
    if (e == q) return q;
    Py_UCS4 last = RD(e - 1);
    if (last == '[' || last == '(' || last == '{' || last == ',') return -1;
    return e;
}

/* An instruction row at line [p, nl): fills result and opcode spans, the opcode's start
 * and the instruction's end; 0 when the line is no instruction row. */
static int instruction_row(int kind, const void *data, Py_ssize_t p, Py_ssize_t nl, Py_ssize_t *res_s,
                           Py_ssize_t *res_e, Py_ssize_t *op_s, Py_ssize_t *op_e, Py_ssize_t *end) {
    Py_ssize_t q = p;
    while (q < nl && (RD(q) == ' ' || RD(q) == '\t')) q++;
    *res_s = *res_e = -1;
    if (q < nl && RD(q) == '%') {
        Py_ssize_t r = q + 1;
        while (r < nl && is_name_char(RD(r))) r++;
        if (r == q + 1) return 0;
        Py_ssize_t t = r;
        while (t < nl && (RD(t) == ' ' || RD(t) == '\t')) t++;
        if (t >= nl || RD(t) != '=') return 0;
        t++;
        while (t < nl && (RD(t) == ' ' || RD(t) == '\t')) t++;
        *res_s = q;
        *res_e = r;
        q = t;
    }
    /* an optional tail/musttail/notail prefix; without it when the rest does not read */
    Py_ssize_t w = q;
    while (w < nl && is_op_char(RD(w))) w++;
    if (word_is(kind, data, q, w, "tail") || word_is(kind, data, q, w, "musttail") ||
        word_is(kind, data, q, w, "notail")) {
        Py_ssize_t s = w;
        while (s < nl && (RD(s) == ' ' || RD(s) == '\t')) s++;
        if (s > w) {
            Py_ssize_t oe = op_at(kind, data, s, nl);
            if (oe >= 0) {
                Py_ssize_t te = tail_end(kind, data, oe, nl);
                if (te >= 0) {
                    *op_s = s;
                    *op_e = oe;
                    *end = te;
                    return 1;
                }
            }
        }
    }
    Py_ssize_t oe = op_at(kind, data, q, nl);
    if (oe < 0) return 0;
    Py_ssize_t te = tail_end(kind, data, oe, nl);
    if (te < 0) return 0;
    *op_s = q;
    *op_e = oe;
    *end = te;
    return 1;
}

/* A blank or comment row: [ \t]*(;[^\n]*)?\r?\n */
static int blank_row(int kind, const void *data, Py_ssize_t p, Py_ssize_t nl) {
    Py_ssize_t q = p;
    while (q < nl && (RD(q) == ' ' || RD(q) == '\t')) q++;
    if (q == nl) return 1;
    if (RD(q) == ';') return 1;
    return RD(q) == '\r' && q + 1 == nl;
}

/* A label row: [ \t]*NAME:[ \t\r]*(;[^\n]*)?\n; the name's span. */
static int label_row(int kind, const void *data, Py_ssize_t p, Py_ssize_t nl, Py_ssize_t *s, Py_ssize_t *e) {
    Py_ssize_t q = p;
    while (q < nl && (RD(q) == ' ' || RD(q) == '\t')) q++;
    Py_ssize_t r = q;
    while (r < nl && is_name_char(RD(r))) r++;
    if (r == q || r >= nl || RD(r) != ':') return 0;
    Py_ssize_t t = r + 1;
    while (t < nl && (RD(t) == ' ' || RD(t) == '\t' || RD(t) == '\r')) t++;
    if (t < nl && RD(t) != ';') return 0;
    *s = q;
    *e = r;
    return 1;
}

/* Making an Instruction without running its Python __init__: the offsets of its slots,
 * read from the class's member descriptors (the layout CPython gives a __slots__ class).
 * When the class is not laid out that way, body_rows calls the class as before. */
#define N_SLOTS 7
static const char *slot_names[N_SLOTS] = {"name", "opcode", "start", "_len", "_op", "ops", "function"};
enum { S_NAME, S_OPCODE, S_START, S_LEN, S_OP, S_OPS, S_FUNCTION };
static PyObject *slots_of = NULL; /* the class the offsets were read from (a strong reference) */
static Py_ssize_t slot_off[N_SLOTS];

/* 1: the offsets of cls's slots are in slot_off; 0: cls has no such slots; -1: error */
static int read_slots(PyObject *cls) {
    if (slots_of == cls) return 1;
    if (!PyType_Check(cls) || ((PyTypeObject *)cls)->tp_init == NULL) return 0;
    for (int k = 0; k < N_SLOTS; k++) {
        PyObject *d = PyObject_GetAttrString(cls, slot_names[k]);
        if (d == NULL) {
            PyErr_Clear();
            return 0;
        }
        int ok = Py_IS_TYPE(d, &PyMemberDescr_Type) && ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX;
        if (ok) slot_off[k] = ((PyMemberDescrObject *)d)->d_member->offset;
        Py_DECREF(d);
        if (!ok) return 0;
    }
    Py_XDECREF(slots_of);
    Py_INCREF(cls);
    slots_of = cls;
    return 1;
}

/* A new Instruction with what Instruction.__init__ stores: name, opcode, start, _len =
 * end - start, _op = opstart - start, ops = None, function. */
static PyObject *make_instruction(PyObject *cls, PyObject *name, PyObject *opcode, Py_ssize_t start,
                                  Py_ssize_t end, Py_ssize_t opstart, PyObject *fn, PyObject *start_obj) {
    PyTypeObject *tp = (PyTypeObject *)cls;
    PyObject *obj = tp->tp_alloc(tp, 0);
    if (obj == NULL) return NULL;
    PyObject *vals[N_SLOTS];
    vals[S_NAME] = name;
    Py_INCREF(name);
    vals[S_OPCODE] = opcode;
    Py_INCREF(opcode);
    /* start_obj: an int for start made already (an unnamed block's offset), or NULL */
    Py_XINCREF(start_obj);
    vals[S_START] = start_obj != NULL ? start_obj : PyLong_FromSsize_t(start);
    vals[S_LEN] = PyLong_FromSsize_t(end - start);
    vals[S_OP] = PyLong_FromSsize_t(opstart >= 0 ? opstart - start : -1);
    vals[S_OPS] = Py_None;
    Py_INCREF(Py_None);
    vals[S_FUNCTION] = fn;
    Py_INCREF(fn);
    int failed = vals[S_START] == NULL || vals[S_LEN] == NULL || vals[S_OP] == NULL;
    for (int k = 0; k < N_SLOTS; k++) /* the object owns what was made, also on failure */
        *(PyObject **)((char *)obj + slot_off[k]) = vals[k];
    if (failed) {
        Py_DECREF(obj);
        return NULL;
    }
    return obj;
}

/* names.setdefault(key, key), a new reference */
static PyObject *setdefault_self(PyObject *names, PyObject *key) {
    PyObject *got = PyDict_SetDefault(names, key, key);
    Py_XINCREF(got);
    return got;
}

/* Implicit numbering (llnoalias/ir/numbering.py, whose sets these are). */
typedef struct {
    const char *w;
    Py_ssize_t n;
} Word;
#define W(x) {x, (Py_ssize_t)sizeof(x) - 1}
static const Word terminators[] = {W("ret"), W("br"), W("switch"), W("indirectbr"), W("invoke"), W("resume"),
                                   W("unreachable"), W("cleanupret"), W("catchret"), W("catchswitch"),
                                   W("callbr"), {NULL, 0}};
static const Word value_ops[] = {
    W("fneg"), W("add"), W("fadd"), W("sub"), W("fsub"), W("mul"), W("fmul"), W("udiv"), W("sdiv"), W("fdiv"),
    W("urem"), W("srem"), W("frem"), W("shl"), W("lshr"), W("ashr"), W("and"), W("or"), W("xor"),
    W("extractelement"), W("insertelement"), W("shufflevector"), W("extractvalue"), W("insertvalue"),
    W("alloca"), W("load"), W("cmpxchg"), W("atomicrmw"), W("getelementptr"), W("trunc"), W("zext"), W("sext"),
    W("fptrunc"), W("fpext"), W("fptoui"), W("fptosi"), W("uitofp"), W("sitofp"), W("ptrtoint"), W("ptrtoaddr"),
    W("inttoptr"), W("bitcast"), W("addrspacecast"), W("icmp"), W("fcmp"), W("phi"), W("select"), W("freeze"),
    W("va_arg"), W("landingpad"), W("catchpad"), W("cleanuppad"), W("catchswitch"), {NULL, 0}};
static const Word call_ops[] = {W("call"), W("invoke"), W("callbr"), {NULL, 0}};
static const Word type_words[] = {W("void"), W("half"), W("bfloat"), W("float"), W("double"), W("x86_fp80"),
                                  W("fp128"), W("ppc_fp128"), W("x86_mmx"), W("x86_amx"), W("ptr"), W("label"),
                                  W("token"), W("metadata"), W("target"), W("opaque"), {NULL, 0}};
#define NUMBER_LIMIT (1LL << 32)

static int word_in(int kind, const void *data, Py_ssize_t s, Py_ssize_t e, const Word *words) {
    Py_ssize_t n = e - s;
    if (n <= 0) return 0;
    Py_UCS4 first = RD(s);
    for (; words->w != NULL; words++) {
        if (words->n != n || (Py_UCS4)(unsigned char)words->w[0] != first) continue;
        Py_ssize_t k = 1;
        while (k < n && RD(s + k) == (Py_UCS4)(unsigned char)words->w[k]) k++;
        if (k == n) return 1;
    }
    return 0;
}

/* numbering._VOID_CALL_RE.match(text[q:e]): after a call's opcode, words that are no type
 * (each with a parenthesised argument at most), then 'void' */
static int call_is_void(int kind, const void *data, Py_ssize_t q, Py_ssize_t e) {
    Py_ssize_t p = q;
    for (;;) {
        Py_ssize_t s = p;
        while (p < e && (RD(p) == ' ' || RD(p) == '\t')) p++;
        if (p == s) return 0;
        Py_ssize_t w = p;
        while (p < e && is_op_char(RD(p))) p++;
        if (p == w) return 0;
        int int_type = RD(w) == 'i' && p - w > 1;
        for (Py_ssize_t k = w + 1; int_type && k < p; k++)
            if (RD(k) < '0' || RD(k) > '9') int_type = 0;
        if (int_type || word_in(kind, data, w, p, type_words)) {
            if (!word_is(kind, data, w, p, "void")) return 0;
            return p >= e || !is_name_char(RD(p));
        }
        if (p < e && RD(p) == '(') {
            Py_ssize_t r = p + 1;
            while (r < e && RD(r) != '(' && RD(r) != ')' && RD(r) != '\n') r++;
            if (r < e && RD(r) == ')') p = r + 1;
        }
    }
}

/* numbering.number_of(text[s:e]) for a name with its sigil: its number, or -1 */
static long long number_at(int kind, const void *data, Py_ssize_t s, Py_ssize_t e) {
    if (e - s < 2 || e - s > 12) return -1;
    long long v = 0;
    for (Py_ssize_t k = s + 1; k < e; k++) {
        Py_UCS4 c = RD(k);
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (long long)(c - '0');
    }
    return v < NUMBER_LIMIT ? v : -1;
}

/* names.setdefault("%N", "%N") for the next number, taken (a new reference), or NULL */
/* Add ``name`` to the set of defined values: 1 when it was new, 0 when it was defined
   already (a redefinition, which the Python reader reports), -1 on an error. */
static int
define_once(PyObject *defined, PyObject *name)
{
    int has = PySet_Contains(defined, name);
    if (has != 0) return has < 0 ? -1 : 0;
    return PySet_Add(defined, name) < 0 ? -1 : 1;
}

static PyObject *take_number(PyObject *names, long long *next) {
    PyObject *key = PyUnicode_FromFormat("%%%lld", *next);
    if (key == NULL) return NULL;
    PyObject *got = setdefault_self(names, key);
    Py_DECREF(key);
    if (got != NULL) (*next)++;
    return got;
}

/* body_rows(text, pos, end, line, instruction, fn, defined, names, opcodes, by_name, instrs,
 *           blocks, block_offsets, next, after_term) -> (status, pos, line, next, after_term)
 *
 * Reads rows from offset pos (a line start; line is its number) up to end (the start of
 * the '}' line). status 0: all read (pos == end); 1: the row at pos (line) is a debug
 * record or another line for Python; 2: a name defined twice (Python undoes the body).
 * next and after_term are the implicit numbering's state (numbering.Numbering): the next
 * number, and whether the last instruction ended a block.
 */
static PyObject *body_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *text, *instruction, *fn, *defined, *names, *opcodes, *by_name, *instrs, *blocks, *block_offsets;
    Py_ssize_t pos, end, line;
    long long next;
    int after_term;
    if (nargs_ok("body_rows", nargs, 15, 15) < 0 || arg_str(args[0], &text) < 0 || arg_ssize(args[1], &pos) < 0
        || arg_ssize(args[2], &end) < 0 || arg_ssize(args[3], &line) < 0
        || arg_typed(args[6], &PySet_Type, &defined) < 0 || arg_typed(args[7], &PyDict_Type, &names) < 0
        || arg_typed(args[8], &PyDict_Type, &opcodes) < 0 || arg_typed(args[9], &PyDict_Type, &by_name) < 0
        || arg_typed(args[10], &PyList_Type, &instrs) < 0 || arg_typed(args[11], &PyList_Type, &blocks) < 0
        || arg_typed(args[12], &PyList_Type, &block_offsets) < 0 || arg_longlong(args[13], &next) < 0
        || arg_bool(args[14], &after_term) < 0)
        return NULL;
    instruction = args[4];
    fn = args[5];
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t tlen = PyUnicode_GET_LENGTH(text);
    if (end > tlen) end = tlen;
    int direct = read_slots(instruction);
    if (direct < 0) return NULL;
    int status = 0;
    while (pos < end) {
        Py_ssize_t nl = pos;
        while (nl < end && RD(nl) != '\n') nl++;
        if (nl >= end) { /* no '\n' before end: not a row of ours */
            status = 1;
            break;
        }
        Py_ssize_t res_s, res_e, op_s, op_e, iend, lab_s, lab_e;
        if (instruction_row(kind, data, pos, nl, &res_s, &res_e, &op_s, &op_e, &iend)) {
            PyObject *block_off = NULL; /* the offset of the unnamed block this instruction begins */
            if (PyList_GET_SIZE(blocks) == 0 || after_term) {
                /* an unnamed block: the entry, or one after a terminator */
                PyObject *bname = take_number(names, &next);
                if (bname == NULL) return NULL;
                after_term = 0;
                int has = PySet_Contains(defined, bname);
                if (has != 0) {
                    Py_DECREF(bname);
                    if (has < 0) return NULL;
                    status = 2;
                    break;
                }
                PyObject *off = PyLong_FromSsize_t(pos);
                if (off == NULL || PyList_Append(blocks, bname) < 0 || PyList_Append(block_offsets, off) < 0 ||
                    PySet_Add(defined, bname) < 0) {
                    Py_XDECREF(off);
                    Py_DECREF(bname);
                    return NULL;
                }
                block_off = off; /* (a reference the list holds; the instruction takes one of its own) */
                Py_DECREF(off);
                Py_DECREF(bname);
            }
            PyObject *op = PyUnicode_Substring(text, op_s, op_e);
            if (op == NULL) return NULL;
            PyObject *opcode = PyDict_SetDefault(opcodes, op, op); /* borrowed */
            Py_DECREF(op);
            if (opcode == NULL) return NULL;
            PyObject *name = Py_None;
            Py_INCREF(name);
            if (res_s >= 0) {
                PyObject *res = PyUnicode_Substring(text, res_s, res_e);
                if (res == NULL) {
                    Py_DECREF(name);
                    return NULL;
                }
                Py_DECREF(name);
                name = setdefault_self(names, res);
                Py_DECREF(res);
                if (name == NULL) return NULL;
                int fresh = define_once(defined, name);
                if (fresh <= 0) {
                    Py_DECREF(name);
                    if (fresh < 0) return NULL;
                    status = 2;
                    break;
                }
                long long number = number_at(kind, data, res_s, res_e);
                if (number >= next) next = number + 1;
            } else if (word_in(kind, data, op_s, op_e, value_ops) ||
                       (word_in(kind, data, op_s, op_e, call_ops) && !call_is_void(kind, data, op_e, iend))) {
                /* an unnamed value: it takes the next number, as in LLVM's parser */
                Py_DECREF(name);
                name = take_number(names, &next);
                if (name == NULL) return NULL;
                int fresh = define_once(defined, name);
                if (fresh <= 0) {
                    Py_DECREF(name);
                    if (fresh < 0) return NULL;
                    status = 2;
                    break;
                }
            }
            if (word_in(kind, data, op_s, op_e, terminators)) after_term = 1;
            PyObject *inst = NULL;
            if (direct) {
                inst = make_instruction(instruction, name, opcode, pos, iend, op_s, fn, block_off);
            } else {
                PyObject *n_start = PyLong_FromSsize_t(pos), *n_end = PyLong_FromSsize_t(iend),
                         *n_op = PyLong_FromSsize_t(op_s);
                if (n_start != NULL && n_end != NULL && n_op != NULL) {
                    PyObject *argv[6] = {name, opcode, n_start, n_end, fn, n_op};
                    inst = PyObject_Vectorcall(instruction, argv, 6, NULL);
                }
                Py_XDECREF(n_start);
                Py_XDECREF(n_end);
                Py_XDECREF(n_op);
            }
            if (inst == NULL) {
                Py_DECREF(name);
                return NULL;
            }
            if (name != Py_None && PyDict_SetItem(by_name, name, inst) < 0) {
                Py_DECREF(name);
                Py_DECREF(inst);
                return NULL;
            }
            Py_DECREF(name);
            int err = PyList_Append(instrs, inst);
            Py_DECREF(inst);
            if (err < 0) return NULL;
        } else if (blank_row(kind, data, pos, nl)) {
            /* nothing to record */
        } else if (label_row(kind, data, pos, nl, &lab_s, &lab_e)) {
            PyObject *bare = PyUnicode_Substring(text, lab_s, lab_e);
            if (bare == NULL) return NULL;
            PyObject *lname = PyUnicode_FromFormat("%%%U", bare);
            Py_DECREF(bare);
            if (lname == NULL) return NULL;
            PyObject *label = setdefault_self(names, lname);
            Py_DECREF(lname);
            if (label == NULL) return NULL;
            int has = PySet_Contains(defined, label);
            if (has != 0) {
                Py_DECREF(label);
                if (has < 0) return NULL;
                status = 2;
                break;
            }
            PyObject *off = PyLong_FromSsize_t(pos);
            if (off == NULL || PySet_Add(defined, label) < 0 || PyList_Append(blocks, label) < 0 ||
                PyList_Append(block_offsets, off) < 0) {
                Py_XDECREF(off);
                Py_DECREF(label);
                return NULL;
            }
            Py_DECREF(off);
            Py_DECREF(label);
            after_term = 0;
            long long number = number_at(kind, data, lab_s - 1, lab_e); /* (the name's sigil: any character) */
            if (number >= next) next = number + 1;
        } else {
            status = 1; /* a debug record or another line: Python reads it */
            break;
        }
        pos = nl + 1;
        line++;
    }
    return Py_BuildValue("innLi", status, pos, line, next, after_term);
}

/* A table of the defined names, looked up by their code points in the text: a reference
 * that is defined (most are) costs no str object. Open addressing, FNV-1a over the code
 * points; a name that is not a str is left to PySet_Contains. */
typedef struct {
    PyObject **slot; /* borrowed from the set, which the caller keeps alive */
    Py_uhash_t *hash;
    size_t mask;
} NameTable;

static void table_free(NameTable *t) {
    PyMem_Free(t->slot);
    PyMem_Free(t->hash);
}

static Py_uhash_t fnv_text(int kind, const void *data, Py_ssize_t s, Py_ssize_t e) {
    Py_uhash_t h = (Py_uhash_t)1469598103934665603ULL;
    for (Py_ssize_t k = s; k < e; k++) {
        h ^= (Py_uhash_t)RD(k);
        h *= (Py_uhash_t)1099511628211ULL;
    }
    return h;
}

/* 1: built; 0: the set holds something that is not a str (use the set); -1: error */
static int table_build(NameTable *t, PyObject *defined) {
    Py_ssize_t n = PySet_GET_SIZE(defined);
    size_t cap = 16;
    while (cap < (size_t)n * 2 + 2) cap <<= 1;
    t->slot = PyMem_Calloc(cap, sizeof(PyObject *));
    t->hash = PyMem_Malloc(cap * sizeof(Py_uhash_t));
    t->mask = cap - 1;
    if (t->slot == NULL || t->hash == NULL) {
        table_free(t);
        PyErr_NoMemory();
        return -1;
    }
    PyObject *it = PyObject_GetIter(defined), *item;
    if (it == NULL) return -1;
    int ok = 1;
    while ((item = PyIter_Next(it)) != NULL) {
        if (!PyUnicode_Check(item) || PyUnicode_READY(item) < 0) {
            Py_DECREF(item);
            ok = 0;
            break;
        }
        Py_uhash_t h = fnv_text(PyUnicode_KIND(item), PyUnicode_DATA(item), 0, PyUnicode_GET_LENGTH(item));
        size_t i = (size_t)h & t->mask;
        while (t->slot[i] != NULL) i = (i + 1) & t->mask;
        t->slot[i] = item; /* borrowed: the set holds it */
        t->hash[i] = h;
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) ok = -1;
    if (ok != 1) table_free(t);
    return ok;
}

/* Is text[s:e] one of the table's names? */
static int table_has(const NameTable *t, int kind, const void *data, Py_ssize_t s, Py_ssize_t e) {
    Py_uhash_t h = fnv_text(kind, data, s, e);
    Py_ssize_t len = e - s;
    for (size_t i = (size_t)h & t->mask; t->slot[i] != NULL; i = (i + 1) & t->mask) {
        PyObject *name = t->slot[i];
        if (t->hash[i] != h || PyUnicode_GET_LENGTH(name) != len) continue;
        int nkind = PyUnicode_KIND(name);
        const void *ndata = PyUnicode_DATA(name);
        Py_ssize_t k = 0;
        while (k < len && PyUnicode_READ(nkind, ndata, k) == RD(s + k)) k++;
        if (k == len) return 1;
    }
    return 0;
}

/* undefined_refs(text, start, end, defined) -> the set of
 * re.findall(r"[%@][-a-zA-Z$._0-9]+", text[start:end]) not in the set defined, or None when [start, end) holds '%"' or '@"' anywhere (a quoted
 * name: the caller reads the body with the exact scan). One pass, and no set of every
 * reference: most are defined names, looked up in place and dropped. */
static PyObject *undefined_refs(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *text, *defined;
    Py_ssize_t start, end;
    if (nargs_ok("undefined_refs", nargs, 4, 4) < 0 || arg_str(args[0], &text) < 0 || arg_ssize(args[1], &start) < 0
        || arg_ssize(args[2], &end) < 0 || arg_typed(args[3], &PySet_Type, &defined) < 0)
        return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t tlen = PyUnicode_GET_LENGTH(text);
    if (end > tlen) end = tlen;
    if (start < 0) start = 0;
    NameTable table;
    int fast = table_build(&table, defined);
    if (fast < 0) return NULL;
    PyObject *out = PySet_New(NULL);
    if (out == NULL) goto fail;
    Py_ssize_t p = start;
    while (p < end) {
        Py_UCS4 c = RD(p);
        if ((c == '%' || c == '@') && p + 1 < end) {
            Py_UCS4 d = RD(p + 1);
            if (d == '"') {
                Py_SETREF(out, Py_NewRef(Py_None));
                goto done;
            }
            if (is_name_char(d)) {
                Py_ssize_t q = p + 2;
                while (q < end && is_name_char(RD(q))) q++;
                if (!fast || !table_has(&table, kind, data, p, q)) {
                    PyObject *s = PyUnicode_Substring(text, p, q);
                    if (s == NULL) goto fail;
                    int has = fast ? 0 : PySet_Contains(defined, s);
                    if (has < 0 || (has == 0 && PySet_Add(out, s) < 0)) {
                        Py_DECREF(s);
                        goto fail;
                    }
                    Py_DECREF(s);
                }
                p = q;
                continue;
            }
        }
        p++;
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    if (fast) table_free(&table);
    return out;
}

/* line_starts(text) -> bytes: the offsets after each '\n', with 0 first, as native int64
 * (what Lines keeps in an array("q")). A one-byte string (any ASCII or Latin-1 module, so
 * nearly every input) is scanned with memchr; the others a code point at a time. */
static PyObject *line_starts(PyObject *self, PyObject *args) {
    PyObject *text;
    if (!PyArg_ParseTuple(args, "U", &text)) return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), count = 1;
    const char *bytes = kind == PyUnicode_1BYTE_KIND ? (const char *)data : NULL;
    if (bytes != NULL) {
        for (const char *q = memchr(bytes, '\n', (size_t)n); q != NULL;
             q = memchr(q + 1, '\n', (size_t)(bytes + n - (q + 1))))
            count++;
    } else {
        for (Py_ssize_t k = 0; k < n; k++)
            if (RD(k) == '\n') count++;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(long long));
    if (out == NULL) return NULL;
    long long *v = (long long *)PyBytes_AS_STRING(out);
    Py_ssize_t j = 0;
    v[j++] = 0;
    if (bytes != NULL) {
        for (const char *q = memchr(bytes, '\n', (size_t)n); q != NULL;
             q = memchr(q + 1, '\n', (size_t)(bytes + n - (q + 1))))
            v[j++] = (long long)(q - bytes + 1);
    } else {
        for (Py_ssize_t k = 0; k < n; k++)
            if (RD(k) == '\n') v[j++] = (long long)(k + 1);
    }
    return out;
}

/* splice(text, edits, tail) -> bytes or None: Editor.chunks() joined and encoded, for an
 * ASCII text, edits and tail (None for anything else: Python does it); tail (the appended
 * lines) follows the text. edits is the Editor's list
 * of (start, end, order, text) tuples in the order they were made; they are taken sorted by
 * (start, end, order) and, among equals, in that order (as Editor's stable sort does).
 * Overlapping edits raise AssertionError, as Editor.chunks does. */
typedef struct {
    Py_ssize_t start, end, order, index;
} Place;

static int place_cmp(const void *pa, const void *pb) {
    const Place *a = (const Place *)pa, *b = (const Place *)pb;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    if (a->order != b->order) return a->order < b->order ? -1 : 1;
    return a->index < b->index ? -1 : (a->index > b->index);
}

static PyObject *splice(PyObject *self, PyObject *args) {
    PyObject *text, *edits, *tail;
    if (!PyArg_ParseTuple(args, "UO!U", &text, &PyList_Type, &edits, &tail)) return NULL;
    if (!PyUnicode_IS_ASCII(text) || !PyUnicode_IS_ASCII(tail)) Py_RETURN_NONE;
    const char *src = (const char *)PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), m = PyList_GET_SIZE(edits);
    Place *places = PyMem_Malloc((size_t)(m > 0 ? m : 1) * sizeof(Place));
    if (places == NULL) return PyErr_NoMemory();
    PyObject *out = NULL;
    Py_ssize_t total = n + PyUnicode_GET_LENGTH(tail);
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *e = PyList_GET_ITEM(edits, k);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 4 || !PyUnicode_Check(PyTuple_GET_ITEM(e, 3)) ||
            !PyUnicode_IS_ASCII(PyTuple_GET_ITEM(e, 3)))
            goto fallback;
        Py_ssize_t v[3];
        for (int j = 0; j < 3; j++) {
            v[j] = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, j));
            if (v[j] == -1 && PyErr_Occurred()) {
                PyErr_Clear();
                goto fallback;
            }
        }
        if (v[0] < 0 || v[1] < v[0] || v[1] > n) goto fallback;
        places[k].start = v[0];
        places[k].end = v[1];
        places[k].order = v[2];
        places[k].index = k;
        total += PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(e, 3)) - (v[1] - v[0]);
    }
    qsort(places, (size_t)m, sizeof(Place), place_cmp);
    Py_ssize_t pos = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        if (places[k].start < pos) {
            PyErr_Format(PyExc_AssertionError, "overlapping edits at offset %zd", places[k].start);
            goto done;
        }
        pos = places[k].end;
    }
    out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL) goto done;
    char *w = PyBytes_AS_STRING(out);
    pos = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *t = PyTuple_GET_ITEM(PyList_GET_ITEM(edits, places[k].index), 3);
        Py_ssize_t len = PyUnicode_GET_LENGTH(t);
        memcpy(w, src + pos, (size_t)(places[k].start - pos));
        w += places[k].start - pos;
        memcpy(w, PyUnicode_DATA(t), (size_t)len);
        w += len;
        pos = places[k].end;
    }
    memcpy(w, src + pos, (size_t)(n - pos));
    w += n - pos;
    memcpy(w, PyUnicode_DATA(tail), (size_t)PyUnicode_GET_LENGTH(tail));
    goto done;
fallback:
    out = Py_NewRef(Py_None);
done:
    PyMem_Free(places);
    return out;
}

/* hostile(text, max_bits, max_depth) -> (offset, what) or None: limits.first_hostile.
 * what 0: an integer type 'iN' with N 0 or past max_bits (a bare word: no name character
 * or sigil before it, no name character or ':' after it); what 1: a bracket that opens
 * level max_depth + 1 of its line. Strings (to their quote or the line's end) and
 * comments are skipped; the level starts at 0 on every line. One pass over the text. */
static int name_before(Py_UCS4 c) {
    return is_name_char(c) || c == '%' || c == '@' || c == '!' || c == '#' || c == '^' || c == '\\';
}

/* An address space past max_space at the '(' at p (limits._first_addrspace's pattern:
 * 'addrspace', blanks, the '(' and blanks, then eight digits or more once leading zeros
 * are dropped, the word not part of a name): the digits' offset, else -1. */
static Py_ssize_t addrspace_at(int kind, const void *data, Py_ssize_t n, Py_ssize_t p, long long max_space) {
    Py_ssize_t q = p;
    while (q > 0 && (RD(q - 1) == ' ' || RD(q - 1) == '\t')) q--;
    if (q < 9 || RD(q - 1) != 'e' || !word_is(kind, data, q - 9, q, "addrspace") ||
        (q > 9 && name_before(RD(q - 10))))
        return -1;
    Py_ssize_t s = p + 1;
    while (s < n && (RD(s) == ' ' || RD(s) == '\t')) s++;
    Py_ssize_t z = s;
    while (z < n && RD(z) == '0') z++;
    Py_ssize_t e = z;
    while (e < n && RD(e) >= '0' && RD(e) <= '9') e++;
    if (e - z < 8) return -1;
    if (e - z > 8) return s;
    long long v = 0;
    for (Py_ssize_t k = z; k < e; k++) v = v * 10 + (long long)(RD(k) - '0');
    return v > max_space ? s : -1;
}

static PyObject *hostile(PyObject *self, PyObject *args) {
    PyObject *text;
    long long max_bits, max_depth, max_space = -1;
    if (!PyArg_ParseTuple(args, "ULL|L", &text, &max_bits, &max_depth, &max_space)) return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), p = 0;
    long long depth = 0;
    /* a one-byte string (nearly every module): the characters that matter are found by a
     * table, the others skipped in a tight loop */
    static unsigned char matters[256];
    if (!matters['i']) {
        const char *set = "\n\";;([{<)]}>i";
        for (const char *q = set; *q; q++) matters[(unsigned char)*q] = 1;
    }
    const unsigned char *bytes = kind == PyUnicode_1BYTE_KIND ? (const unsigned char *)data : NULL;
    while (p < n) {
        if (bytes != NULL) {
            while (p < n && !matters[bytes[p]]) p++;
            if (p >= n) break;
        }
        Py_UCS4 c = RD(p);
        switch (c) {
        case '\n':
            depth = 0;
            break;
        case '"':
            p++;
            while (p < n && RD(p) != '"' && RD(p) != '\n') p++;
            if (p < n && RD(p) == '"') break; /* the closing quote */
            continue;                          /* the line's end (or the text's): read it as such */
        case ';':
            while (p < n && RD(p) != '\n') p++;
            continue;
        case '(':
            if (++depth > max_depth) return Py_BuildValue("ni", p, 1);
            if (max_space >= 0) {
                Py_ssize_t at = addrspace_at(kind, data, n, p, max_space);
                if (at >= 0) return Py_BuildValue("ni", at, 2);
            }
            break;
        case '[': case '{': case '<':
            if (++depth > max_depth) return Py_BuildValue("ni", p, 1);
            break;
        case ')': case ']': case '}': case '>':
            depth--;
            break;
        case 'i':
            if (p == 0 || !name_before(RD(p - 1))) {
                Py_ssize_t q = p + 1;
                while (q < n && RD(q) >= '0' && RD(q) <= '9') q++;
                if (q > p + 1 && (q >= n || !(is_name_char(RD(q)) || RD(q) == ':'))) {
                    Py_ssize_t z = p + 1;
                    while (z < q && RD(z) == '0') z++;
                    int bad = z == q || q - z > 18;
                    if (!bad) {
                        long long v = 0;
                        for (Py_ssize_t k = z; k < q; k++) v = v * 10 + (long long)(RD(k) - '0');
                        bad = v > max_bits;
                    }
                    if (bad) return Py_BuildValue("ni", p, 0);
                }
                p = q;
                continue;
            }
            break;
        default:
            break;
        }
        p++;
    }
    Py_RETURN_NONE;
}

/* header_line(code) -> (at, lp, close, params) or None
 *
 * A header's code (what is before its '{') of the common shape that
 * HeaderReader._header_fast reads by its pattern (_HEADER_RE), split where that pattern
 * splits it: no ';' or '"' in it; at is its first '@', lp the first '(' after it, the name
 * between them a plain name (_NAME_RE); close is the last ')', with no '(' after it; the
 * parameters between lp and close hold no nested parenthesis and are blanks only (none),
 * or split by the commas outside parentheses into non-empty pieces, each a text up to its
 * first '%' (not empty), a name ('%' and one or more name characters) and blanks (' ',
 * '\t', '\n'). params: per piece its text before the '%', its name and the '%''s offset
 * from lp + 1. None for any other code (the caller reads it by the pattern). Whether the
 * text before the '@', each piece's text before its name and the text after close are
 * texts the pattern reads is the caller's to say (header_reader's _PRE_SEEN, _PIECES_SEEN
 * and _TAIL_SEEN hold only such texts).
 *
 * header_line(code, pieces, argument, start) -> (at, lp, close, args) or None: the same, with
 * per piece argument(name, index, *pieces[text before its name], start + the '%''s offset)
 * (the code at start in its text: an Argument with its type and attributes), and None
 * also when a piece's text is not among pieces.
 */
static PyObject *header_line(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *code, *pieces = NULL, *argument = NULL;
    Py_ssize_t start = 0;
    if (nargs_ok("header_line", nargs, 1, 4) < 0 || arg_str(args[0], &code) < 0
        || (nargs > 1 && arg_typed(args[1], &PyDict_Type, &pieces) < 0)
        || (nargs > 3 && arg_ssize(args[3], &start) < 0))
        return NULL;
    if (nargs > 2) argument = args[2];
    if (pieces != NULL && (argument == NULL || !PyCallable_Check(argument))) {
        PyErr_SetString(PyExc_TypeError, "header_line: pieces without an argument class");
        return NULL;
    }
    int kind = PyUnicode_KIND(code);
    const void *data = PyUnicode_DATA(code);
    Py_ssize_t n = PyUnicode_GET_LENGTH(code), at = -1, lp = -1, close = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_UCS4 c = RD(k);
        if (c == ';' || c == '"') Py_RETURN_NONE;
        if (c == '@' && at < 0) at = k;
        else if (c == '(' && at >= 0 && lp < 0) lp = k;
        else if (c == ')') close = k;
    }
    if (at < 0 || lp < 0 || close < lp || lp == at + 1) Py_RETURN_NONE;
    Py_UCS4 first = RD(at + 1);
    if (first >= '0' && first <= '9') Py_RETURN_NONE;
    for (Py_ssize_t k = at + 1; k < lp; k++)
        if (!is_name_char(RD(k))) Py_RETURN_NONE;
    for (Py_ssize_t k = close + 1; k < n; k++)
        if (RD(k) == '(') Py_RETURN_NONE;
    PyObject *params = PyList_New(0);
    if (params == NULL) return NULL;
    Py_ssize_t s = lp + 1, blank = 1;
    for (Py_ssize_t k = s; k < close; k++) {
        Py_UCS4 c = RD(k);
        if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c')) blank = 0;
    }
    if (blank) goto done; /* (str.strip() leaves nothing: no parameters) */
    while (s <= close) {
        /* one piece: [s, pe), up to a comma outside parentheses or close */
        Py_ssize_t pe = s, cut = -1;
        int depth = 0;
        while (pe < close) {
            Py_UCS4 c = RD(pe);
            if (c == '(') {
                if (depth) goto other;
                depth = 1;
            } else if (c == ')') {
                if (!depth) goto other;
                depth = 0;
            } else if (c == ',' && !depth) {
                break;
            } else if (c == '%' && cut < 0) {
                cut = pe;
            }
            pe++;
        }
        if (depth || pe == s || cut <= s || cut >= pe) goto other;
        Py_ssize_t ne = cut + 1;
        while (ne < pe && is_name_char(RD(ne))) ne++;
        if (ne == cut + 1) goto other;
        for (Py_ssize_t k = ne; k < pe; k++) {
            Py_UCS4 c = RD(k);
            if (!(c == ' ' || c == '\t' || c == '\n')) goto other;
        }
        PyObject *key = PyUnicode_Substring(code, s, cut), *item = NULL;
        if (key != NULL && pieces != NULL) {
            /* the argument itself: Argument(name, index, type, attrs, insert_at) from the
               piece's type and attributes, or None when the piece is not among pieces */
            PyObject *known = PyDict_GetItemWithError(pieces, key); /* borrowed */
            Py_DECREF(key);
            if (known == NULL && PyErr_Occurred()) {
                Py_DECREF(params);
                return NULL;
            }
            if (known == NULL || !PyTuple_Check(known) || PyTuple_GET_SIZE(known) != 2) goto other;
            PyObject *name = PyUnicode_Substring(code, cut, ne);
            PyObject *index = PyLong_FromSsize_t(PyList_GET_SIZE(params));
            PyObject *insert_at = PyLong_FromSsize_t(start + cut);
            if (name != NULL && index != NULL && insert_at != NULL) {
                PyObject *argv[5] = {name, index, PyTuple_GET_ITEM(known, 0), PyTuple_GET_ITEM(known, 1), insert_at};
                item = PyObject_Vectorcall(argument, argv, 5, NULL);
            }
            Py_XDECREF(name);
            Py_XDECREF(index);
            Py_XDECREF(insert_at);
        } else if (key != NULL) {
            PyObject *name = PyUnicode_Substring(code, cut, ne);
            item = name == NULL ? NULL : Py_BuildValue("(OOn)", key, name, cut - (lp + 1));
            Py_DECREF(key);
            Py_XDECREF(name);
        }
        if (item == NULL || PyList_Append(params, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(params);
            return NULL;
        }
        Py_DECREF(item);
        s = pe + 1;
    }
done:
    return Py_BuildValue("(nnnN)", at, lp, close, params);
other:
    Py_DECREF(params);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"hostile", hostile, METH_VARARGS,
     "The first integer width out of range or bracket nested too deep: (offset, what) or None."},
    {"splice", splice, METH_VARARGS, "Editor.chunks() joined and encoded for ASCII text and edits, else None."},
    {"line_starts", line_starts, METH_VARARGS, "The offsets where the lines of text start, as int64 bytes."},
    {"header_line", (PyCFunction)(void (*)(void))header_line, METH_FASTCALL,
     "A common header's code split as header_reader's pattern splits it, or None."},
    {"body_rows", (PyCFunction)(void (*)(void))body_rows, METH_FASTCALL, "Read the plain rows of a function body (see _body_reader.c)."},
    {"undefined_refs", (PyCFunction)(void (*)(void))undefined_refs, METH_FASTCALL,
     "set(re.findall(r'[%@][-a-zA-Z$._0-9]+', text[start:end])) - defined, or None where a quoted name occurs."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_body_reader",
                                    "The compiled hot loop of the function body reader.", -1, methods};

PyMODINIT_FUNC PyInit__body_reader(void) { return PyModule_Create(&module); }
