// The HTML viewer's files (viewer/viewer.html, viewer.css and its scripts,
// joined in the order they run), embedded at build time by
// viewer/embed.cmake: the html writer needs no file at run time.
// viewer.html holds the markers /*STROBE:CSS*/, /*STROBE:DATA*/ and
// /*STROBE:JS*/ where the writer puts the style, the profile and the script.
// Thread safety: immutable constants. Not NUL-terminated: use the size.
#pragma once

#include <string_view>

namespace strobe::output {

extern const std::string_view kViewerHtml;
extern const std::string_view kViewerCss;
extern const std::string_view kViewerJs;

}  // namespace strobe::output
