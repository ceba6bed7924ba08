// Loads libsystemd on demand (see include/CSystemd.h): the `sd_bus_*` functions the Swift code calls are this
// file's forwarders to libsystemd's own (CLazyLibrary.h). CHIRPER_LIBSYSTEMD names another file to load (tests
// name a missing one).
#include "CSystemd.h"

#include <CLazyLibrary.h>
#include <errno.h>

// X(return type, name, parameters, arguments, value without the library).
#define CHIRPER_SDBUS_FUNCTIONS(X) \
    X(int, sd_bus_open_user, (sd_bus **ret), (ret), -ENOSYS) \
    X(sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus), (bus), NULL) \
    X(int, sd_bus_request_name, (sd_bus *bus, const char *name, uint64_t flags), (bus, name, flags), -ENOSYS) \
    X(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r), -ENOSYS) \
    X(int, sd_bus_get_fd, (sd_bus *bus), (bus), -ENOSYS) \
    X(int, sd_bus_get_events, (sd_bus *bus), (bus), -ENOSYS) \
    X(int, sd_bus_get_timeout, (sd_bus *bus, uint64_t *timeout_usec), (bus, timeout_usec), -ENOSYS) \
    X(int, sd_bus_send, (sd_bus *bus, sd_bus_message *m, uint64_t *cookie), (bus, m, cookie), -ENOSYS) \
    X(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m), NULL) \
    X(int, sd_bus_message_new_signal, (sd_bus *bus, sd_bus_message **m, const char *path, const char *interface, const char *member), (bus, m, path, interface, member), -ENOSYS) \
    X(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p), -ENOSYS) \
    X(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents), -ENOSYS) \
    X(int, sd_bus_message_close_container, (sd_bus_message *m), (m), -ENOSYS) \
    X(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p), -ENOSYS) \
    X(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents), (m, type, contents), -ENOSYS) \
    X(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents), (m, type, contents), -ENOSYS) \
    X(int, sd_bus_message_exit_container, (sd_bus_message *m), (m), -ENOSYS) \
    X(int, sd_bus_add_object, (sd_bus *bus, sd_bus_slot **slot, const char *path, sd_bus_message_handler_t callback, void *userdata), (bus, slot, path, callback, userdata), -ENOSYS) \
    X(sd_bus_slot *, sd_bus_slot_unref, (sd_bus_slot *slot), (slot), NULL) \
    X(int, sd_bus_message_is_method_call, (sd_bus_message *m, const char *interface, const char *member), (m, interface, member), -ENOSYS) \
    X(const char *, sd_bus_message_get_interface, (sd_bus_message *m), (m), NULL) \
    X(const char *, sd_bus_message_get_member, (sd_bus_message *m), (m), NULL) \
    X(int, sd_bus_message_new_method_return, (sd_bus_message *call, sd_bus_message **m), (call, m), -ENOSYS) \
    X(int, sd_bus_reply_method_error, (sd_bus_message *call, const sd_bus_error *e), (call, e), -ENOSYS) \
    X(int, sd_bus_message_get_expect_reply, (sd_bus_message *m), (m), -ENOSYS)

CHIRPER_LAZY_LIBRARY(sdbus, "libsystemd.so.0", "CHIRPER_LIBSYSTEMD", CHIRPER_SDBUS_FUNCTIONS, CHIRPER_LAZY_NONE,
                     CHIRPER_LAZY_NONE)
