// The HTML viewer's files (viewer/viewer.html, viewer.css and its scripts,
// joined in the order they run) and strobe diff's compare page's
// (compare.html, compare.css, its scripts; it is styled by viewer.css too),
// embedded at build time by viewer/embed.cmake: the html writers need no
// file at run time. compare.html holds /*STROBE:CSS*/, /*STROBE:DATA*/,
// /*STROBE:JS*/ and <!--STROBE:RUNS--> (each run's own page), in that order.
// viewer.html holds the markers /*STROBE:CSS*/, /*STROBE:DATA*/ and
// /*STROBE:JS*/ where the writer puts the style, the profile and the script.
// Thread safety: immutable constants. Not NUL-terminated: use the size.
#pragma once

#include <string_view>

namespace strobe::output {

extern const std::string_view kViewerHtml;
extern const std::string_view kViewerCss;
extern const std::string_view kViewerJs;
extern const std::string_view kCompareHtml;
extern const std::string_view kCompareCss;
extern const std::string_view kCompareJs;

// Where the writers put the style, the data, the script and (compare page
// only) each run's own page.
constexpr std::string_view kCssMarker = "/*STROBE:CSS*/";
constexpr std::string_view kDataMarker = "/*STROBE:DATA*/";
constexpr std::string_view kJsMarker = "/*STROBE:JS*/";
constexpr std::string_view kRunsMarker = "<!--STROBE:RUNS-->";

}  // namespace strobe::output
