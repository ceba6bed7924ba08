#ifndef CHIRPER_CEDITLINE_SHIM_H
#define CHIRPER_CEDITLINE_SHIM_H
#include <stdio.h>
#include <histedit.h>
#endif
