#ifndef CHIRPER_CSONIC_SHIM_H
#define CHIRPER_CSONIC_SHIM_H
#include <sonic.h>
#endif
