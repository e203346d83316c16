// The figures exported as journals take them and the result folder as one zip
// (see report_methods.h).
#include <algorithm>
#include <map>

#include "genefamily/stages/report_methods.h"
#include "pipeline/subprocess.h"
#include "table/zip_writer.h"

namespace bioagent::gf {

bool figure_export_available() { return !which("rsvg-convert").empty(); }

std::vector<Step> figure_export_steps(const StageContext& ctx) {
  std::vector<Step> steps;
  if (!figure_export_available()) return steps;
  const fs::path final_dir = fs::path(ctx.run.value("run_dir", std::string())) / "final";
  std::vector<fs::path> svgs;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(final_dir, ec))
    if (e.is_regular_file(ec) && e.path().extension() == ".svg") svgs.push_back(e.path());
  std::sort(svgs.begin(), svgs.end());
  for (auto& svg : svgs) {
    const std::string stem = "final/" + svg.stem().string();
    // 180 mm: a journal's full page width; 300 dpi at that width is 2126 pixels. White behind the PNG (the
    // SVGs are transparent); the PDF keeps text as text and lines as vectors.
    steps.push_back(Command{
        {"rsvg-convert", "-f", "pdf", "-w", "180mm", "--keep-aspect-ratio", "-o", stem + ".pdf", svg.string()}});
    steps.push_back(Command{{"rsvg-convert", "-f", "png", "-w", "180mm", "-d", "300", "-p", "300",
                             "--keep-aspect-ratio", "-b", "white", "-o", stem + ".png", svg.string()}});
  }
  return steps;
}

Status write_results_zip(const StageContext& ctx) {
  const fs::path run_final = fs::path(ctx.run.value("run_dir", std::string())) / "final", own = ctx.work / "final";
  const std::string zip_name = final_name(ctx, "results.zip");
  std::map<std::string, fs::path> files;  // this stage's own files replace older ones of the same name
  std::error_code ec;
  for (const fs::path& dir : {run_final, own})
    for (auto& e : fs::directory_iterator(dir, ec))
      if (e.is_regular_file(ec) && e.path().extension() != ".zip") files[e.path().filename().string()] = e.path();
  std::vector<std::pair<std::string, fs::path>> entries(files.begin(), files.end());
  return write_zip(ctx.work / zip_name, entries);
}

}  // namespace bioagent::gf
