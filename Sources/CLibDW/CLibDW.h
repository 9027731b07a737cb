// CLibDW: the elfutils libraries LeakGraph uses, as one Clang module for Swift.
//
// libdwfl finds the modules mapped into a process and their symbols, libdw reads their DWARF
// (compile units, line tables), and libelf/gelf read ELF headers, sections and symbol tables.
// Found through pkg-config (`libdw`, package libdw-dev); the module map links -ldw and -lelf.

#ifndef CLIBDW_H
#define CLIBDW_H

#include <elfutils/libdwfl.h>
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <libelf.h>
#include <gelf.h>

#endif /* CLIBDW_H */
