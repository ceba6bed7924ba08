#ifndef CHIRPER_CEDITLINE_H
#define CHIRPER_CEDITLINE_H
// libedit: line editing and history at a terminal's prompt.
//
// libedit is not linked: it is loaded with dlopen by the first terminal session (CLazyLibrary.h), so a session in
// a pipe never loads it, nor the three libraries it brings (libtinfo, libbsd, libmd). The functions of
// <histedit.h> that this program calls are defined by this target, each calling libedit's through a pointer
// looked up at load time. Without the library `el_init` and `history_init` return NULL (which the terminal's
// owners report, with `chirper_editline_load`'s reason), and the wrappers below return -1.
#include <histedit.h>
#include <stddef.h>
#include <stdio.h>
#include <wchar.h>

/// Loads libedit.so.2 and looks up every function this program uses (once; later calls return the first call's
/// result). Returns 0, or -1 with the reason (dlerror's text) in `error`.
int chirper_editline_load(char *error, size_t size);

// Columns a character takes on the terminal. POSIX (XSI), so glibc declares it only for _XOPEN_SOURCE, which
// Swift's Glibc module is not built with; the function is in every libc.
extern int wcwidth(wchar_t c);

// el_set, el_get and history are C variadic functions, which Swift cannot call. These wrappers give each
// operation chirper-play uses a fixed signature. Everything else in libedit's native API is called directly.

typedef char *(*chirper_el_prompt_fn)(EditLine *);
typedef unsigned char (*chirper_el_command_fn)(EditLine *, int);

/// EL_PROMPT_ESC: the prompt function, with `ignore` marking the start and end of invisible (SGR) text.
int chirper_el_set_prompt(EditLine *el, chirper_el_prompt_fn prompt, char ignore);

/// EL_EDITOR: "emacs" or "vi".
int chirper_el_set_editor(EditLine *el, const char *mode);

/// EL_SIGNAL: whether libedit installs its own signal handlers while reading (chirper-play says no).
int chirper_el_set_signal(EditLine *el, int on);

/// EL_UNBUFFERED: one command per el_gets call, which is what lets a poll loop drive libedit.
int chirper_el_set_unbuffered(EditLine *el, int on);

/// EL_CLIENTDATA: the owner of this EditLine, for the command functions.
int chirper_el_set_clientdata(EditLine *el, void *data);
void *chirper_el_get_clientdata(EditLine *el);

/// EL_HIST: up and down arrows walk this history.
int chirper_el_set_history(EditLine *el, History *history_);

/// EL_ADDFN: a named command that keys can be bound to.
int chirper_el_add_function(EditLine *el, const char *name, const char *help, chirper_el_command_fn function);

/// EL_BIND: binds a key sequence ("^I", "\\e[3~") to a command by name.
int chirper_el_bind(EditLine *el, const char *keys, const char *command);

/// EL_REFRESH: forget what is on the screen and redraw the prompt and the line from the cursor's row.
int chirper_el_refresh(EditLine *el);

/// The history operations, each with its argument type.
int chirper_history_set_size(History *h, HistEvent *event, int size);
int chirper_history_set_unique(History *h, HistEvent *event, int unique);
int chirper_history_enter(History *h, HistEvent *event, const char *line);
/// The most recent entry.
int chirper_history_first(History *h, HistEvent *event);
int chirper_history_load(History *h, HistEvent *event, const char *path);
int chirper_history_save_fp(History *h, HistEvent *event, FILE *file);

#endif
