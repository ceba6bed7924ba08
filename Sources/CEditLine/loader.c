// Loads libedit on demand (see include/CEditLine.h): the functions the Swift code calls are this file's
// forwarders to libedit's own (CLazyLibrary.h), and the fixed-signature wrappers of its variadic ones.
// CHIRPER_LIBEDIT names another file to load (tests name a missing one).
#include "CEditLine.h"

#include <CLazyLibrary.h>

// X(return type, name, parameters, arguments, value without the library), V(…) for the void functions, and
// P(return type, name, parameters) for the variadic ones, called by the wrappers below.
#define CHIRPER_EDITLINE_FUNCTIONS(X) \
    X(EditLine *, el_init, (const char *program, FILE *input, FILE *output, FILE *errors), (program, input, output, errors), NULL) \
    X(const char *, el_gets, (EditLine *el, int *count), (el, count), NULL) \
    X(const LineInfo *, el_line, (EditLine *el), (el), NULL) \
    X(int, el_insertstr, (EditLine *el, const char *text), (el, text), -1) \
    X(int, el_source, (EditLine *el, const char *path), (el, path), -1) \
    X(History *, history_init, (void), (), NULL)

#define CHIRPER_EDITLINE_VOID_FUNCTIONS(V) \
    V(el_end, (EditLine *el), (el)) \
    V(el_resize, (EditLine *el), (el)) \
    V(el_deletestr, (EditLine *el, int count), (el, count)) \
    V(history_end, (History *h), (h))

#define CHIRPER_EDITLINE_POINTERS(P) \
    P(int, el_set, (EditLine *, int, ...)) \
    P(int, el_get, (EditLine *, int, ...)) \
    P(int, history, (History *, HistEvent *, int, ...))

CHIRPER_LAZY_LIBRARY(editline, "libedit.so.2", "CHIRPER_LIBEDIT", CHIRPER_EDITLINE_FUNCTIONS,
                     CHIRPER_EDITLINE_VOID_FUNCTIONS, CHIRPER_EDITLINE_POINTERS)

int chirper_el_set_prompt(EditLine *el, chirper_el_prompt_fn prompt, char ignore) {
    return chirper_lazy_ready() ? loaded_el_set(el, EL_PROMPT_ESC, prompt, ignore) : -1;
}

int chirper_el_set_editor(EditLine *el, const char *mode) {
    return chirper_lazy_ready() ? loaded_el_set(el, EL_EDITOR, mode) : -1;
}

int chirper_el_set_signal(EditLine *el, int on) { return chirper_lazy_ready() ? loaded_el_set(el, EL_SIGNAL, on) : -1; }

int chirper_el_set_unbuffered(EditLine *el, int on) {
    return chirper_lazy_ready() ? loaded_el_set(el, EL_UNBUFFERED, on) : -1;
}

int chirper_el_set_clientdata(EditLine *el, void *data) {
    return chirper_lazy_ready() ? loaded_el_set(el, EL_CLIENTDATA, data) : -1;
}

void *chirper_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    if (chirper_lazy_ready()) loaded_el_get(el, EL_CLIENTDATA, &data);
    return data;
}

// libedit calls the history function it is given: libedit's own.
int chirper_el_set_history(EditLine *el, History *history_) {
    return chirper_lazy_ready() ? loaded_el_set(el, EL_HIST, loaded_history, history_) : -1;
}

int chirper_el_add_function(EditLine *el, const char *name, const char *help, chirper_el_command_fn function) {
    return chirper_lazy_ready() ? loaded_el_set(el, EL_ADDFN, name, help, function) : -1;
}

int chirper_el_bind(EditLine *el, const char *keys, const char *command) {
    return chirper_lazy_ready() ? loaded_el_set(el, EL_BIND, keys, command, NULL) : -1;
}

int chirper_el_refresh(EditLine *el) { return chirper_lazy_ready() ? loaded_el_set(el, EL_REFRESH) : -1; }

int chirper_history_set_size(History *h, HistEvent *event, int size) {
    return chirper_lazy_ready() ? loaded_history(h, event, H_SETSIZE, size) : -1;
}

int chirper_history_set_unique(History *h, HistEvent *event, int unique) {
    return chirper_lazy_ready() ? loaded_history(h, event, H_SETUNIQUE, unique) : -1;
}

int chirper_history_enter(History *h, HistEvent *event, const char *line) {
    return chirper_lazy_ready() ? loaded_history(h, event, H_ENTER, line) : -1;
}

int chirper_history_first(History *h, HistEvent *event) {
    return chirper_lazy_ready() ? loaded_history(h, event, H_FIRST) : -1;
}

int chirper_history_load(History *h, HistEvent *event, const char *path) {
    return chirper_lazy_ready() ? loaded_history(h, event, H_LOAD, path) : -1;
}

int chirper_history_save_fp(History *h, HistEvent *event, FILE *file) {
    return chirper_lazy_ready() ? loaded_history(h, event, H_SAVE_FP, file) : -1;
}
