/* header_all.c compiled as C++17. */
#include "header_all.c"
