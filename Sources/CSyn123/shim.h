#ifndef CHIRPER_CSYN123_SHIM_H
#define CHIRPER_CSYN123_SHIM_H
#include <syn123.h>
#endif
