#ifndef CHIRPER_CMPG123_SHIM_H
#define CHIRPER_CMPG123_SHIM_H
#include <mpg123.h>
#endif
