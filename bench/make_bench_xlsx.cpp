// Writes the benchmark workbook with libxlsxwriter (a third-party writer):
// ROWS x 20 columns of mixed types, as a lab table would hold them: gene ids,
// integers, floats, booleans, dates and free text (shared strings, as Excel).
// Usage: make_bench_xlsx OUT.xlsx ROWS
#include <xlsxwriter.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_bench_xlsx OUT.xlsx ROWS\n");
    return 2;
  }
  long rows = std::atol(argv[2]);
  lxw_workbook* wb = workbook_new(argv[1]);
  lxw_worksheet* ws = workbook_add_worksheet(wb, "expression");
  lxw_format* date = workbook_add_format(wb);
  format_set_num_format(date, "yyyy-mm-dd");
  const char* header[20] = {"gene",       "chrom",     "start",   "end",    "strand", "tpm_leaf",    "tpm_root",
                            "tpm_flower", "tpm_fruit", "log2fc",  "pvalue", "padj",   "significant", "family",
                            "n_exons",    "gc",        "sampled", "note",   "score",  "rank"};
  for (int c = 0; c < 20; ++c) worksheet_write_string(ws, 0, static_cast<lxw_col_t>(c), header[c], nullptr);
  unsigned long long s = 42;
  auto rnd = [&s]() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  };
  const char* families[] = {"SPL", "MYB", "WRKY", "NAC", "bHLH", "AP2/ERF", "MADS", "GRAS"};
  char buf[64];
  for (long r = 1; r <= rows; ++r) {
    lxw_row_t row = static_cast<lxw_row_t>(r);
    std::snprintf(buf, sizeof buf, "Lchi%05ld", r);
    worksheet_write_string(ws, row, 0, buf, nullptr);
    std::snprintf(buf, sizeof buf, "chr%02d", static_cast<int>(1 + rnd() * 15));
    worksheet_write_string(ws, row, 1, buf, nullptr);
    double start = static_cast<double>(static_cast<long>(rnd() * 4e7));
    worksheet_write_number(ws, row, 2, start, nullptr);
    worksheet_write_number(ws, row, 3, start + static_cast<double>(static_cast<long>(500 + rnd() * 9000)), nullptr);
    worksheet_write_string(ws, row, 4, rnd() < 0.5 ? "+" : "-", nullptr);
    for (int c = 5; c < 9; ++c) worksheet_write_number(ws, row, static_cast<lxw_col_t>(c), rnd() * 300, nullptr);
    worksheet_write_number(ws, row, 9, (rnd() - 0.5) * 12, nullptr);
    double p = rnd() * rnd();
    worksheet_write_number(ws, row, 10, p, nullptr);
    worksheet_write_number(ws, row, 11, p * 3 > 1 ? 1 : p * 3, nullptr);
    worksheet_write_boolean(ws, row, 12, p < 0.05, nullptr);
    worksheet_write_string(ws, row, 13, families[static_cast<int>(rnd() * 8)], nullptr);
    worksheet_write_number(ws, row, 14, static_cast<double>(static_cast<int>(1 + rnd() * 14)), nullptr);
    worksheet_write_number(ws, row, 15, 0.3 + rnd() * 0.2, nullptr);
    lxw_datetime dt = {2020 + static_cast<int>(rnd() * 5),
                       1 + static_cast<int>(rnd() * 12),
                       1 + static_cast<int>(rnd() * 28),
                       0,
                       0,
                       0};
    worksheet_write_datetime(ws, row, 16, &dt, date);
    if (r % 7 == 0) worksheet_write_string(ws, row, 17, "low mappability; check the paralog", nullptr);
    worksheet_write_number(ws, row, 18, static_cast<double>(static_cast<int>(rnd() * 1000)) / 10, nullptr);
    worksheet_write_number(ws, row, 19, static_cast<double>(r), nullptr);
  }
  return workbook_close(wb) == LXW_NO_ERROR ? 0 : 1;
}
