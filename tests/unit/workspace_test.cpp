#include <gtest/gtest.h>

#include "bioagent/workspace.h"
#include "test_util.h"

using namespace bioagent;
using bioagent::testing::TempDir;
namespace fs = std::filesystem;

TEST(Workspace, ResolvesInsideTheRoot) {
  TempDir root;
  root.write("data/a.txt", "x");
  auto ws = Workspace::create({root.path().string()});
  ASSERT_TRUE(ws.is_ok());
  auto r = ws->resolve_existing("data/a.txt");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(*r, root.path() / "data/a.txt");
  auto abs = ws->resolve_existing((root.path() / "data/a.txt").string());
  EXPECT_TRUE(abs.is_ok());
  auto inner_dots = ws->resolve("data/../data/a.txt");
  EXPECT_TRUE(inner_dots.is_ok());
  auto not_yet = ws->resolve("data/new.txt");
  EXPECT_TRUE(not_yet.is_ok()) << "a path to create is fine when it stays inside";
}

TEST(Workspace, RefusesEscapes) {
  TempDir root, outside;
  root.write("data/a.txt", "x");
  outside.write("secret.txt", "s");
  auto ws = *Workspace::create({(root.path() / "data").string()});
  for (std::string p : {std::string("../../etc/passwd"), std::string("/etc/passwd"),
                        (outside.path() / "secret.txt").string(), std::string(".."), std::string("a.txt/../../x")}) {
    auto r = ws.resolve(p);
    ASSERT_FALSE(r.is_ok()) << p;
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied) << p;
    EXPECT_NE(r.status().message().find("outside the workspace"), std::string::npos);
  }
}

TEST(Workspace, RefusesSymlinksLeadingOut) {
  TempDir root, outside;
  outside.write("secret.txt", "s");
  root.write("ok.txt", "fine");
  fs::create_symlink(outside.path() / "secret.txt", root.path() / "link.txt");
  fs::create_directory_symlink(outside.path(), root.path() / "linkdir");
  fs::create_symlink(root.path() / "ok.txt", root.path() / "inner_link.txt");
  auto ws = *Workspace::create({root.path().string()});
  EXPECT_EQ(ws.resolve("link.txt").status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(ws.resolve("linkdir/secret.txt").status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(ws.resolve("linkdir/not_there.txt").status().code(), ErrorCode::kPermissionDenied);
  EXPECT_TRUE(ws.resolve("inner_link.txt").is_ok());
}

TEST(Workspace, PrefixOfARootIsNotInside) {
  TempDir base;
  fs::create_directories(base.path() / "data");
  fs::create_directories(base.path() / "data2");
  auto ws = *Workspace::create({(base.path() / "data").string()});
  EXPECT_FALSE(ws.resolve((base.path() / "data2/x").string()).is_ok());
}

TEST(Workspace, BadRootsAndPaths) {
  EXPECT_EQ(Workspace::create({"/no/such/dir/anywhere"}).status().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(Workspace::create({}).is_ok());
  TempDir root;
  auto ws = *Workspace::create({root.path().string()});
  EXPECT_EQ(ws.resolve("").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(ws.resolve(std::string("a\0b", 3)).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(ws.resolve_existing("missing.txt").status().code(), ErrorCode::kNotFound);
  auto second = Workspace::create({root.path().string(), "/tmp"});
  ASSERT_TRUE(second.is_ok());
  EXPECT_EQ(second->roots().size(), 2u);
}

// A session's workspace: the roots plus its own folder inside the excluded
// state folder, and no other session's; relative names are looked up in the
// roots, then the session's folder; refusals and scrubbed text name no
// absolute path when paths are hidden.
TEST(Workspace, ASessionReadsItsOwnFolderAndNoOther) {
  TempDir base;
  base.write("data/shared.csv", "x");
  base.write("data/state/sessions/s_a/data/mine.csv", "a");
  base.write("data/state/sessions/s_b/data/theirs.csv", "b");
  auto ws = *Workspace::create({(base.path() / "data").string()});
  ws.exclude(base.path() / "data/state");
  ws.hide_absolute_paths();
  Workspace a = ws.for_session(base.path() / "data/state/sessions/s_a/data");
  auto mine = a.resolve_existing("mine.csv");
  ASSERT_TRUE(mine.is_ok()) << mine.status().to_string();
  EXPECT_EQ(a.display(*mine), "mine.csv");
  EXPECT_TRUE(a.resolve_existing("shared.csv").is_ok());
  for (const std::string& p : {(base.path() / "data/state/sessions/s_b/data/theirs.csv").string(),
                               std::string("../../s_b/data/theirs.csv"), std::string("state/sessions/s_b")}) {
    auto r = a.resolve(p);
    ASSERT_FALSE(r.is_ok()) << p;
    EXPECT_EQ(r.status().code(), ErrorCode::kPermissionDenied);
    EXPECT_EQ(r.status().to_string().find(base.path().string()), std::string::npos) << r.status().to_string();
  }
  EXPECT_FALSE(ws.resolve_existing("mine.csv").is_ok());  // without the session: not there
  EXPECT_FALSE(a.without_session().resolve_existing("mine.csv").is_ok());
  EXPECT_TRUE(a.without_session()
                  .for_session(base.path() / "data/state/sessions/s_b/data")
                  .resolve_existing("theirs.csv")
                  .is_ok());
  auto outside = a.resolve("/etc/passwd");
  ASSERT_FALSE(outside.is_ok());
  EXPECT_EQ(outside.status().to_string().find("/etc"), std::string::npos) << outside.status().to_string();
  std::string abs = (base.path() / "data/state/sessions/s_a/data/mine.csv").string();
  EXPECT_EQ(a.scrub("cannot read '" + abs + "'"), "cannot read 'mine.csv'");
  EXPECT_EQ(a.scrub((base.path() / "data").string() + "2/x"), (base.path() / "data").string() + "2/x");
}
