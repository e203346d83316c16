// A streaming scanner for worksheet XML (<sheetData> rows and cells, and
// <mergeCells>), the one part of an xlsx that is large. It reads the text once,
// without building a DOM, decoding XML entities, CDATA and namespace prefixes;
// large sheets are split at a row boundary and scanned on two threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bioagent/table.h"

namespace bioagent {

// Excel's own sheet size: a row or column beyond it is a malformed file, whatever the limits.
inline constexpr size_t kExcelMaxRows = 1'048'576;
inline constexpr size_t kExcelMaxCols = 16'384;

// What the scanner needs to turn raw cells into values.
struct SheetContext {
  std::string label;                                 // file name, for errors
  std::string sheet;                                 // sheet name, for errors
  const std::vector<std::string>* shared = nullptr;  // shared strings (null: the part is missing)
  std::vector<uint8_t> date_styles;                  // per style index: 0 none, 1 date, 2 time, 3 both
  bool date1904 = false;
  TableLimits limits;
};

// Scans `xml` (a worksheet part) into `out`.
Status scan_sheet(std::string_view xml, const SheetContext& ctx, Sheet* out);

}  // namespace bioagent
