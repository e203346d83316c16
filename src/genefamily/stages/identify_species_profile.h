// The identify stage's second round: a profile of this species' own family
// members. At genome scale the family profile's full-sequence E-value grows
// with the proteome (1e-5 over 30,000 proteins is 20x stricter than over
// 1,500), and diverged members of a species (fast-evolving tandem copies) fall
// past it. The field's answer (as in many gene-family papers): build a profile
// from the confident first-round members with MAFFT + hmmbuild, search again,
// and keep a new hit only when the family profile still confirms its domain.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "genefamily/stages/stage_common.h"

namespace bioagent::gf {

// Fraction of a profile's match states covered by the union of domain spans (HMM coordinates).
double hmm_coverage(std::vector<std::pair<int64_t, int64_t>> spans, int64_t hmm_len);

// The species profile's seeds in ctx.work: the confident domain region
// (envelope of the domains with i-Evalue <= domain_evalue) of each protein
// whose full-sequence E-value passes params.evalue and whose domains cover
// params.min_coverage of the family profile, at most 300 by score, written to
// species_seeds.fasta. Fails as an empty result when there is none, as the
// selection would.
Status write_species_seeds(const StageContext& ctx);

// The commands of the second round (MAFFT, hmmbuild, hmmsearch), reading
// species_seeds.fasta and writing species.domtbl.
std::vector<Step> species_profile_commands(const StageContext& ctx);

// Proteins the species profile finds at params.evalue that the family profile
// also hit (at any score), from species.domtbl; empty when the round did not run.
std::set<std::string> species_profile_hits(const StageContext& ctx, const std::vector<DomainHit>& family_hits);

// True when the run searches a second time with a species profile: asked for
// and no reference BLAST rescue (whose candidates the family profile confirms
// the same way).
bool species_profile_on(const StageContext& ctx);

}  // namespace bioagent::gf
