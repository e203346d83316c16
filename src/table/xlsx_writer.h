// A small .xlsx writer (strings, numbers, booleans, empty cells) used to make
// the example data bundle; the output opens in Excel, LibreOffice, openpyxl and
// pandas. Not a general-purpose writer: no styles, formulas or dates.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bioagent/table.h"

namespace bioagent {

struct SheetToWrite {
  std::string name;
  std::vector<std::vector<Cell>> rows;
};

Status write_xlsx(const std::filesystem::path& path, const std::vector<SheetToWrite>& sheets);

}  // namespace bioagent
