// CGraphviz: the Graphviz libraries LeakGraph draws its memory graphs with, as one Clang module for Swift.
//
// cgraph parses DOT text into a graph (`agmemread`, `agclose`, error reporting through `agseterrf`);
// gvc lays it out with a plugin engine (`gvLayout`: dot, sfdp, neato) and renders it in-process
// (`gvRenderData` to SVG). gvplugin.h declares `gvplugin_library_t`, which `gvAddLibrary` takes when the
// plugin configuration file is missing and the plugins are loaded by hand.
// Found through pkg-config (`libgvc`, Debian package libgraphviz-dev); the module map links -lgvc,
// -lcgraph and -lcdt.

#ifndef CGRAPHVIZ_H
#define CGRAPHVIZ_H

#include <graphviz/gvc.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvplugin.h>

#endif /* CGRAPHVIZ_H */
