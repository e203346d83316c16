// A toy stage for engine tests: one in-process step writes `text(ctx)` to
// out.txt, and the stage's summary is {"text": that line}.
#pragma once

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bioagent/pipeline.h"

namespace bioagent::testing {

inline StageSpec text_stage(const std::string& name, std::vector<std::string> after, const char* params_schema,
                            std::function<std::string(const StageContext&)> text) {
  StageSpec s;
  s.name = name;
  s.after = std::move(after);
  s.params_schema = Json::parse(params_schema);
  s.steps = [text](const StageContext&) -> Result<std::vector<Step>> {
    return std::vector<Step>{StageFn([text](const StageContext& c) {
      std::ofstream(c.work / "out.txt") << text(c) << "\n";
      return Status::ok();
    })};
  };
  s.outputs = {"out.txt"};
  s.parse = [](const StageContext& c) -> Result<Json> {
    std::ifstream in(c.work / "out.txt");
    std::string line;
    std::getline(in, line);
    return Json{{"text", line}};
  };
  return s;
}

}  // namespace bioagent::testing
