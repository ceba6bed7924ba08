#include <systemd/sd-bus.h>
#include <poll.h>
