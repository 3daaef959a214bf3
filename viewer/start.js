// strobe's HTML viewer, last: every view has registered; show the state the
// URL asks for (view, selection, search), else the flame graph.
"use strict";
window.strobeViewer.start();
