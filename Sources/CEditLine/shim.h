#ifndef CHIRPER_CEDITLINE_SHIM_H
#define CHIRPER_CEDITLINE_SHIM_H
#include <stdio.h>
#include <histedit.h>
#include <wchar.h>

// Columns a character takes on the terminal. POSIX (XSI), so glibc declares it only for _XOPEN_SOURCE, which
// Swift's Glibc module is not built with; the function is in every libc.
extern int wcwidth(wchar_t c);

// el_set, el_get and history are C variadic functions, which Swift cannot call. These wrappers give each
// operation chirper-play uses a fixed signature. Everything else in libedit's native API is called directly.

typedef char *(*chirper_el_prompt_fn)(EditLine *);
typedef unsigned char (*chirper_el_command_fn)(EditLine *, int);

/// EL_PROMPT_ESC: the prompt function, with `ignore` marking the start and end of invisible (SGR) text.
static inline int chirper_el_set_prompt(EditLine *el, chirper_el_prompt_fn prompt, char ignore) {
    return el_set(el, EL_PROMPT_ESC, prompt, ignore);
}

/// EL_EDITOR: "emacs" or "vi".
static inline int chirper_el_set_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }

/// EL_SIGNAL: whether libedit installs its own signal handlers while reading (chirper-play says no).
static inline int chirper_el_set_signal(EditLine *el, int on) { return el_set(el, EL_SIGNAL, on); }

/// EL_UNBUFFERED: one command per el_gets call, which is what lets a poll loop drive libedit.
static inline int chirper_el_set_unbuffered(EditLine *el, int on) { return el_set(el, EL_UNBUFFERED, on); }

/// EL_CLIENTDATA: the owner of this EditLine, for the command functions.
static inline int chirper_el_set_clientdata(EditLine *el, void *data) { return el_set(el, EL_CLIENTDATA, data); }
static inline void *chirper_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data;
}

/// EL_HIST: up and down arrows walk this history.
static inline int chirper_el_set_history(EditLine *el, History *history_) {
    return el_set(el, EL_HIST, history, history_);
}

/// EL_ADDFN: a named command that keys can be bound to.
static inline int chirper_el_add_function(EditLine *el, const char *name, const char *help,
                                          chirper_el_command_fn function) {
    return el_set(el, EL_ADDFN, name, help, function);
}

/// EL_BIND: binds a key sequence ("^I", "\\e[3~") to a command by name.
static inline int chirper_el_bind(EditLine *el, const char *keys, const char *command) {
    return el_set(el, EL_BIND, keys, command, NULL);
}

/// EL_REFRESH: forget what is on the screen and redraw the prompt and the line from the cursor's row.
static inline int chirper_el_refresh(EditLine *el) { return el_set(el, EL_REFRESH); }

/// The history operations, each with its argument type.
static inline int chirper_history_set_size(History *h, HistEvent *event, int size) {
    return history(h, event, H_SETSIZE, size);
}
static inline int chirper_history_set_unique(History *h, HistEvent *event, int unique) {
    return history(h, event, H_SETUNIQUE, unique);
}
static inline int chirper_history_enter(History *h, HistEvent *event, const char *line) {
    return history(h, event, H_ENTER, line);
}
/// The most recent entry.
static inline int chirper_history_first(History *h, HistEvent *event) { return history(h, event, H_FIRST); }
static inline int chirper_history_load(History *h, HistEvent *event, const char *path) {
    return history(h, event, H_LOAD, path);
}
static inline int chirper_history_save_fp(History *h, HistEvent *event, FILE *file) {
    return history(h, event, H_SAVE_FP, file);
}

#endif
