// Inside src/genefamily/io: matching sequence records (proteins, CDS) to the
// genes and transcripts of a GFF3 by what their identifiers are, not by a
// list of portals. Each record of the GFF3 lends every identifier it carries
// (GffIdentifier: ID, Name, Alias, pacid, Dbxref, protein_id of its CDS, ...),
// each FASTA record every identifier its header carries (its id, the word it
// was cleaned from, key=value and key:value tokens, [key=value] tokens, bare
// id-like words); both are compared in normal forms of growing tolerance:
// as written, without a type prefix and in lower case, without a version
// suffix (".v3.0", ".Araport11.447"), with the isoform letters of proteins and
// transcripts made one (-PA/-RA, _P001/_T001, .p1/.t1), and a protein's id
// without its isoform suffix against gene identifiers. A pairing of a header
// key with a record key at one form is a scheme; the scheme that links the
// most records one-to-one decides first, the others then place what it left.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bioagent/seqio.h"

namespace bioagent {

// The normal forms of one identifier: [0] as written, [1] type prefix dropped
// ("gene:", "rna-", "mrna:") in lower case, [2] also without a version suffix,
// [3] also with the isoform letter made one (-pa/-ra -> -#a, _p001/_t001 ->
// _#001, .p1/.t1 -> .#1), [4] the gene an isoform id names (isoform_base of
// [2], lower case; "" when it has no isoform suffix).
struct IdForms {
  std::string form[5];
};
IdForms id_forms(std::string_view id);

// The identifiers a FASTA record carries, keyed by where they were found:
// "FASTA id", "FASTA header word" (the word read_fasta cleaned the id from),
// "header transcript=", "header gene:", "header [locus_tag=]", "header word".
std::vector<GffIdentifier> header_identifiers(const FastaRecord& r);

// Where one record leads: the transcript (empty for a gene-level match) and
// the gene; `scheme` says how ("FASTA id = mRNA Name", with the form when it
// is not the identifier as written). Empty gene: no GFF3 record matched.
struct IdMatch {
  std::string transcript, gene, scheme;
};

// Matches every record of `records` against `gff` (see above). `evidence`,
// when given, receives each scheme used with the number of records it placed,
// most first.
std::vector<IdMatch> match_records(const GffModel& gff, const std::vector<FastaRecord>& records,
                                   std::vector<std::pair<std::string, size_t>>* evidence = nullptr);

}  // namespace bioagent
