// Writes an xlsx with libxlsxwriter (a third-party C writer) for the reader
// tests: numbers, strings (shared and unicode), booleans, a date, gaps.
// Usage: write_xlsxwriter_fixture OUT.xlsx
#include <xlsxwriter.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  lxw_workbook* wb = workbook_new(argv[1]);
  lxw_worksheet* ws = workbook_add_worksheet(wb, "Scores");
  lxw_format* date = workbook_add_format(wb);
  format_set_num_format(date, "yyyy-mm-dd");
  worksheet_write_string(ws, 0, 0, "tf", nullptr);
  worksheet_write_string(ws, 0, 1, "pagerank", nullptr);
  worksheet_write_string(ws, 0, 2, "active", nullptr);
  worksheet_write_string(ws, 0, 3, "date", nullptr);
  worksheet_write_string(ws, 1, 0, "RUNX3", nullptr);
  worksheet_write_number(ws, 1, 1, 0.30000000000000004, nullptr);
  worksheet_write_boolean(ws, 1, 2, 1, nullptr);
  lxw_datetime dt = {2023, 11, 5, 0, 0, 0};
  worksheet_write_datetime(ws, 1, 3, &dt, date);
  worksheet_write_string(ws, 2, 0, "Ωmega", nullptr);
  worksheet_write_number(ws, 2, 1, 1e300, nullptr);
  worksheet_write_number(ws, 4, 4, -7, nullptr);
  return workbook_close(wb) == LXW_NO_ERROR ? 0 : 1;
}
