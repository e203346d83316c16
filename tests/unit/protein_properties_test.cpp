// Isoelectric point in the field's convention (ExPASy ProtParam pK values) and
// the EMBOSS table as the alternative.
#include <gtest/gtest.h>

#include <cmath>

#include "genefamily/algo/protein_properties.h"

using namespace bioagent;

namespace {
// Biopython's ProtParam test protein; its pI 7.72 is the ExPASy-convention
// (Bjellqvist) value Biopython checks against.
const char* kReference =
    "MAEGEITTFTALTEKFNLPPGNYKKPKLLYCSNGGHFLRILPDGTVDGTRDRSDQHIQLQLSAESVGEVYIKSTETGQYLAMDTSGLLYGSQTPSEECLFLERLEENHYN"
    "TYTSKKHAEKNWFVGLKKNGSCKRGPRTHYGQKAILFLPLPV";
}  // namespace

TEST(ProteinPropertiesPi, ExpasyValues) {
  EXPECT_NEAR(protein_properties(kReference).isoelectric_point, 7.72, 0.005);
  // ExPASy ProtParam's theoretical pI for this peptide is 9.88 (the R package Peptides checks the same value).
  EXPECT_NEAR(protein_properties("QWGRRCCGWGPGRRYCVRWC").isoelectric_point, 9.88, 0.005);
}

TEST(ProteinPropertiesPi, TerminalResiduesShiftTheExpasyValue) {
  // ExPASy's N-terminal pK depends on the first residue (P 8.36 vs the default 7.5),
  // the C-terminal one on the last (E 4.75 vs 3.55); EMBOSS uses one value each.
  EXPECT_GT(protein_charge("PGGGK", 8.0), protein_charge("GGGGK", 8.0));
  EXPECT_DOUBLE_EQ(protein_charge("PGGGK", 8.0, PkScale::kEmboss), protein_charge("GGGGK", 8.0, PkScale::kEmboss));
}

TEST(ProteinPropertiesPi, EmbossTableOnRequest) {
  double expasy = protein_properties(kReference).isoelectric_point;
  double emboss = protein_properties(kReference, PkScale::kEmboss).isoelectric_point;
  EXPECT_NEAR(emboss, 8.07,
              0.01);  // EMBOSS pK values: N 8.6, C 3.6, K 10.8, R 12.5, H 6.5, D 3.9, E 4.1, C 8.5, Y 10.1
  EXPECT_GT(std::abs(emboss - expasy), 0.3);
  // At the isoelectric point the net charge is zero, on either scale.
  EXPECT_NEAR(protein_charge(kReference, expasy), 0.0, 1e-6);
  EXPECT_NEAR(protein_charge(kReference, emboss, PkScale::kEmboss), 0.0, 1e-6);
}
