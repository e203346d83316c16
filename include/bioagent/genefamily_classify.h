// `genefamily classify`: a set of HMMs searched once over one or more proteomes,
// each protein assigned to a family by a rules table (built in: TAPscan v4's
// family rules), optionally compared with a reference classification.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bioagent/status.h"

namespace bioagent {

struct ClassifyOptions {
  std::vector<std::string> hmm_files;   // each searched once per proteome
  std::vector<std::string> proteomes;   // FASTA (gzip allowed)
  std::vector<std::string> references;  // optional, one per proteome: TAPscan output.3 tables
  std::string rules_file;               // empty: the built-in rules
  std::string out_dir = "classify";     // <proteome stem>.families.tsv and the hmmsearch tables
  int cpus = 1;
  double evalue = 0.01;  // hmmsearch reporting threshold for profiles without GA lines
};

struct ClassifyReport {
  // {proteomes:[{proteome, classified, families:{name:count}, table}], threshold_mode per HMM file,
  //  families:{name: full|rules|required|none}, unexpressible_rules:{rule:[domains]},
  //  agreement?:{rows:[...], pooled:{full|rules|required:{recall, precision}}}}
  Json summary;
  std::string agreement_table;  // empty without references
};

Result<ClassifyReport> classify_families(const ClassifyOptions& options);

}  // namespace bioagent
