// A small XML well-formedness checker of our own, so tests can hold every SVG heed writes
// to the rules a browser's XML parser applies: properly nested tags, quoted attribute values
// without duplicates, the five predefined entities and numeric character references, comments,
// CDATA, processing instructions, an optional <?xml ...?> declaration at the very start, and
// exactly one root element. Not a validator: no DTDs (a <!DOCTYPE> is rejected), no namespaces.
#pragma once

#include <string>

namespace heed {

// True when `text` is a well-formed XML document. Otherwise false, and `*error` (when not null)
// says what is wrong and where: "byte 42: end tag </g> does not match <svg>".
bool xml_well_formed(const std::string& text, std::string* error = nullptr);

}  // namespace heed
