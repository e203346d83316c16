// The genome-side readers within their input limits (bioagent/input_limits.h):
// each limit generated at and one past its value, plain and gzip-compressed;
// bytes that are not UTF-8 in ids, streams split across read buffers, FIFOs,
// truncated and many-member gzip, and the refusals' texts (the limit, how to
// raise it, never the file's folder).
#include <sys/stat.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bioagent/input_limits.h"
#include "bioagent/seqio.h"
#include "test_util.h"

namespace bioagent {
namespace {

using testing::TempDir;

std::string gzip(const std::string& text) {
  uLongf size = compressBound(uLong(text.size())) + 32;
  std::string out(size, '\0');
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = uInt(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

enum class Reader { kFasta, kLengths, kGff };

Status read_with(Reader r, const std::filesystem::path& p, const InputLimits& l) {
  switch (r) {
    case Reader::kFasta:
      return read_fasta(p, l).status();
    case Reader::kLengths:
      return fasta_lengths(p, l).status();
    case Reader::kGff:
      return read_gff3(p, l).status();
  }
  return Status::ok();
}

const char* reader_name(Reader r) {
  return r == Reader::kFasta ? "read_fasta" : r == Reader::kLengths ? "fasta_lengths" : "read_gff3";
}

std::string gff_line(const std::string& seqid, const std::string& type, const std::string& attrs) {
  return seqid + "\tsrc\t" + type + "\t1\t90\t.\t+\t0\t" + attrs + "\n";
}

// A file that reaches a limit at `n` (the value the limit is set to) and passes it at n + 1.
struct LimitCase {
  const char* key;
  Reader reader;
  std::function<std::string(int64_t over)> file;  // over = 0: exactly at the limit; 1: one past it
  int64_t value;
};

std::vector<LimitCase> limit_cases() {
  auto ids = [](int64_t n) {
    std::string s;
    for (int64_t i = 0; i < n; ++i) s += (i ? ",t" : "t") + std::to_string(i);
    return s;
  };
  return {
      {"line_bytes", Reader::kGff,
       [](int64_t o) {
         std::string l = gff_line("chr1", "gene", "ID=g1;Note=");
         l.insert(l.size() - 1, std::string(size_t(200 - (l.size() - 1) + o), 'x'));
         return l;
       },
       200},
      {"line_bytes", Reader::kFasta, [](int64_t o) { return ">a " + std::string(size_t(198 + o), 'd') + "\nMK\n"; },
       200},
      {"id_bytes", Reader::kFasta, [](int64_t o) { return ">" + std::string(size_t(64 + o), 'a') + "\nMK\n"; }, 64},
      {"id_bytes", Reader::kLengths, [](int64_t o) { return ">" + std::string(size_t(64 + o), 'a') + "\nACGT\n"; }, 64},
      {"id_bytes", Reader::kGff,
       [](int64_t o) { return gff_line("chr1", "gene", "ID=" + std::string(size_t(64 + o), 'g')); }, 64},
      {"id_bytes", Reader::kGff, [](int64_t o) { return gff_line(std::string(size_t(64 + o), 'c'), "gene", "ID=g1"); },
       64},
      {"attributes", Reader::kGff,
       [](int64_t o) {
         std::string a = "ID=g1";
         for (int64_t i = 1; i < 16 + o; ++i) a += ";k" + std::to_string(i) + "=v";
         return gff_line("chr1", "gene", a);
       },
       16},
      {"parents", Reader::kGff,
       [ids](int64_t o) {
         return gff_line("chr1", "mRNA", "ID=t0") + gff_line("chr1", "CDS", "ID=c1;Parent=" + ids(50 + o));
       },
       50},
      {"features", Reader::kGff,
       [](int64_t o) {
         std::string s = "##gff-version 3\n";
         for (int64_t i = 0; i < 40 + o; ++i) s += gff_line("chr1", "gene", "ID=g" + std::to_string(i));
         return s;
       },
       40},
      {"records", Reader::kFasta,
       [](int64_t o) {
         std::string s;
         for (int64_t i = 0; i < 30 + o; ++i) s += ">p" + std::to_string(i) + "\nMKV\n";
         return s;
       },
       30},
      {"sequence_bytes", Reader::kFasta,
       [](int64_t o) { return ">p\n" + std::string(500, 'M') + "\n" + std::string(size_t(500 + o), 'K') + "\n"; },
       1000},
      {"genome_sequence_bytes", Reader::kLengths,
       [](int64_t o) { return ">chr1\n" + std::string(size_t(3000 + o), 'A') + "\n>chr2\nACGT\n"; }, 3000},
      {"file_bytes", Reader::kFasta,
       [](int64_t o) { return ">p\n" + std::string(size_t(2000 - 3 - 1 + o), 'M') + "\n"; }, 2000},
      {"genome_bytes", Reader::kLengths,
       [](int64_t o) { return ">c\n" + std::string(size_t(2000 - 3 - 1 + o), 'A') + "\n"; }, 2000},
  };
}

TEST(InputLimits, EachLimitAcceptsItsValueAndRefusesOnePastItPlainAndGzip) {
  TempDir dir;
  int cases = 0;
  for (const auto& c : limit_cases()) {
    for (bool gz : {false, true}) {
      InputLimits limits;
      limits.*std::find_if(InputLimits::fields().begin(), InputLimits::fields().end(), [&](auto& f) {
                return std::string(f.key) == c.key;
              })->member = c.value;
      for (int64_t over : {0, 1}) {
        const std::string text = c.file(over);
        const auto p = dir.write(std::string("in") + (gz ? ".gz" : ""), gz ? gzip(text) : text);
        const Status s = read_with(c.reader, p, limits);
        SCOPED_TRACE(std::string(c.key) + " " + reader_name(c.reader) + (gz ? " gzip" : " plain") +
                     (over ? " over" : " at"));
        ++cases;
        if (!over) {
          EXPECT_TRUE(s.is_ok()) << s.message();
          continue;
        }
        ASSERT_FALSE(s.is_ok());
        EXPECT_EQ(s.code(), ErrorCode::kResourceExhausted) << s.message();
        EXPECT_EQ(s.details().value("limit", ""), c.key) << s.message();
        EXPECT_NE(s.message().find(std::string("input_limits.") + c.key + " is " + std::to_string(c.value)),
                  std::string::npos)
            << s.message();
        EXPECT_NE(s.message().find(std::string("--input-limit ") + c.key + "=N"), std::string::npos);
        EXPECT_EQ(s.message().find(dir.path().string()), std::string::npos) << s.message();
        EXPECT_EQ(s.details()["reason"].value("kind", ""), "input_limit");
      }
    }
  }
  EXPECT_EQ(cases, int(limit_cases().size()) * 4);
}

TEST(InputLimits, BytesThatAreNotUtf8InAnIdAreRefusedQuotedAsHexInValidUtf8Messages) {
  TempDir dir;
  const std::vector<std::string> bad = {"\xff", "\xc0\xaf", "\x80", "\xe2\x82", "\xed\xa0\x80", "\xf5\x80\x80\x80"};
  for (const std::string& b : bad)
    for (Reader r : {Reader::kFasta, Reader::kLengths, Reader::kGff})
      for (bool gz : {false, true})
        for (const std::string& where : {std::string("start"), std::string("end")}) {
          const std::string id = where == "start" ? b + "g" : "g" + b;
          const std::string text = r == Reader::kGff
                                       ? gff_line("chr1", "gene", "ID=" + id)
                                       : ">" + id + " desc\n" + (r == Reader::kFasta ? "MKV" : "ACGT") + "\n";
          const auto p = dir.write(gz ? "x.gz" : "x", gz ? gzip(text) : text);
          const Status s = read_with(r, p, InputLimits{});
          SCOPED_TRACE(std::string(reader_name(r)) + " " + where + (gz ? " gzip" : ""));
          ASSERT_FALSE(s.is_ok());
          EXPECT_EQ(s.code(), ErrorCode::kParseError);
          EXPECT_EQ(valid_utf8(s.message()), s.message());
          EXPECT_NE(s.message().find("0x"), std::string::npos) << s.message();
          EXPECT_NO_THROW((void)s.to_json().dump());
          EXPECT_EQ(s.details()["reason"].value("kind", ""), "bad_input");
        }
}

TEST(InputLimits, SequenceBytesOtherThanResiduesAreRefusedWithTheirColumn) {
  TempDir dir;
  for (Reader r : {Reader::kFasta, Reader::kLengths})
    for (const char* bad : {"\xff", "\x01", "1", "<"}) {
      const auto p = dir.write("x.fa", ">a\nMK" + std::string(bad) + "V\n");
      const Status s = read_with(r, p, InputLimits{});
      ASSERT_FALSE(s.is_ok()) << bad;
      EXPECT_NE(s.message().find("column 3"), std::string::npos) << s.message();
      EXPECT_EQ(valid_utf8(s.message()), s.message());
    }
}

TEST(InputLimits, LinesSplitAcrossReadBuffersAreReadWholeWithCrLfAndAByteOrderMark) {
  TempDir dir;
  // A genome line longer than any read buffer (1 MiB + 7), CR LF ends, a BOM first.
  const std::string seq(size_t(1) << 20, 'A');
  const std::string text = "\xEF\xBB\xBF>chr1 first\r\n" + seq + "ACGTACG\r\n>chr2\r\nAC GT\r\n";
  for (bool gz : {false, true}) {
    const auto p = dir.write(gz ? "g.fa.gz" : "g.fa", gz ? gzip(text) : text);
    auto lengths = fasta_lengths(p);
    ASSERT_TRUE(lengths.is_ok()) << lengths.status().message();
    EXPECT_EQ((*lengths)["chr1"], int64_t(seq.size() + 7));
    EXPECT_EQ((*lengths)["chr2"], 4);
    InputLimits l;
    l.sequence_bytes = int64_t(2) << 20;
    auto records = read_fasta(p, l);
    ASSERT_TRUE(records.is_ok()) << records.status().message();
    ASSERT_EQ(records->size(), 2u);
    EXPECT_EQ((*records)[0].id, "chr1");
    EXPECT_EQ((*records)[0].seq.size(), seq.size() + 7);
    EXPECT_EQ((*records)[1].seq, "ACGT");
  }
}

TEST(InputLimits, ManyMemberGzipIsReadWholeAndATruncatedOneIsRefused) {
  TempDir dir;
  const std::string a = ">a\nMKV\n", b = ">b\nMKL\n";
  const auto whole = dir.write("two.fa.gz", gzip(a) + gzip(b));  // as bgzip writes: members one after another
  auto r = read_fasta(whole);
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->size(), 2u);
  const std::string z = gzip(a + b);
  const auto cut = dir.write("cut.fa.gz", z.substr(0, z.size() - 6));
  const Status s = read_fasta(cut).status();
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("cut.fa.gz: not readable gzip data"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find(dir.path().string()), std::string::npos);
}

TEST(InputLimits, ADecompressionBombIsStoppedByTheRatioWhileStreaming) {
  TempDir dir;
  const auto p = dir.write("bomb.pep.fasta.gz", gzip(">a\n" + std::string(size_t(8) << 20, 'M') + "\n"));
  InputLimits l;
  l.inflate_ratio_after_bytes = int64_t(1) << 20;
  l.sequence_bytes = int64_t(1) << 30;
  const Status s = read_fasta(p, l).status();
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.details().value("limit", ""), "inflate_ratio");
  EXPECT_NE(s.message().find("decompression bomb"), std::string::npos);
  l.inflate_ratio = 100000;  // raised, the same file is read
  EXPECT_TRUE(read_fasta(p, l).is_ok());
}

TEST(InputLimits, AFifoOrAFolderIsRefusedWithoutWaiting) {
  TempDir dir;
  const auto fifo = dir.path() / "Lchi.pep.fasta";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (Reader r : {Reader::kFasta, Reader::kLengths, Reader::kGff}) {
    const Status s = read_with(r, fifo, InputLimits{});
    ASSERT_FALSE(s.is_ok());
    EXPECT_NE(s.message().find("not a regular file"), std::string::npos) << s.message();
    EXPECT_EQ(read_with(r, dir.path(), InputLimits{}).is_ok(), false);
  }
}

TEST(InputLimits, OverridesByRunParameterAndOptionAreCheckedAndNamed) {
  auto l = InputLimits{}.with(Json{{"parents", 20}, {"line_bytes", 1 << 24}});
  ASSERT_TRUE(l.is_ok());
  EXPECT_EQ(l->parents, 20);
  EXPECT_EQ(l->line_bytes, 1 << 24);
  EXPECT_EQ(InputLimits{}.with_option("features=5")->features, 5);
  for (const Json& bad : {Json{{"parent", 1}}, Json{{"parents", 0}}, Json{{"parents", "9"}}, Json::array()})
    EXPECT_FALSE(InputLimits{}.with(bad).is_ok()) << bad.dump();
  for (const char* bad : {"features", "features=", "features=x", "=4", "features=-3"})
    EXPECT_FALSE(InputLimits{}.with_option(bad).is_ok()) << bad;
  for (auto& f : InputLimits::fields()) EXPECT_TRUE(InputLimits{}.to_json().contains(f.key)) << f.key;
}

TEST(InputLimits, DefaultsReadARealSizedAnnotationLine) {
  // A plant gene with 10 isoforms sharing one CDS row (Parent of 10) and long Note text.
  std::string parents;
  for (int i = 1; i <= 10; ++i) parents += (i > 1 ? ",t" : "t") + std::to_string(i);
  std::string text = gff_line("Chr01", "gene", "ID=g1;Note=" + std::string(20000, 'n'));
  for (int i = 1; i <= 10; ++i) text += gff_line("Chr01", "mRNA", "ID=t" + std::to_string(i) + ";Parent=g1");
  text += gff_line("Chr01", "CDS", "ID=c1;Parent=" + parents);
  auto m = parse_gff3(text, "x.gff3");
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_EQ(m->transcripts.at("t7").cds.size(), 1u);
}

}  // namespace
}  // namespace bioagent
