#pragma once
// Links from a written document to files beside it (the PNG plots a Markdown report shows), so
// they resolve where the document is opened, not where peerbench ran.
#include <string>

namespace peerbench {

// `target` (a path as given, relative to the working directory or absolute) as a link from the
// folder of `document` (the output file; "" for standard output, which links from the working
// directory). Folders are compared after resolving symbolic links where they exist. Characters
// that are not safe in a Markdown or URL link (spaces, parentheses, '%', non-ASCII bytes) are
// percent-encoded; '/' separates the parts.
std::string relative_link(const std::string& target, const std::string& document);

}  // namespace peerbench
