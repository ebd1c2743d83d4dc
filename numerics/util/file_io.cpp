#include "numerics/util/file_io.hpp"
#include "numerics/sweep/distribution.hpp"

#include "numerics/util/errors.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>
#include <fstream>
#include <sstream>

namespace infoflow {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Parses with a depth guard. The parser itself is iterative; the guard keeps every later recursive
// walk (copies, destructors, our own readers) shallow. Returns a discarded value on any error and
// says why in `error`.
json parse_guarded(const std::string& text, std::string& error) {
  bool too_deep = false;
  const json::parser_callback_t guard = [&too_deep](int depth, json::parse_event_t, json&) {
    if (depth > kMaxJsonDepth) too_deep = true;
    return !too_deep;
  };
  try {
    json j = json::parse(text, guard, /*allow_exceptions=*/true);
    if (too_deep) {
      error = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return json(json::value_t::discarded);
    }
    return j;
  } catch (const json::exception& e) {
    error = too_deep ? "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels" : std::string(e.what());
    return json(json::value_t::discarded);
  }
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& argument, const std::string& what) {
  std::string error;
  json j = parse_guarded(text, error);
  if (j.is_discarded()) throw InputError(argument, what + " is not valid JSON (" + error + ")");
  return j;
}

json try_parse_json_text(const std::string& text) {
  std::string error;
  return parse_guarded(text, error);
}

json read_json_file(const std::string& path, const std::string& argument) {
  std::error_code ec;
  if (path.empty()) throw InputError(argument, "expected a file name, got an empty string");
  if (!fs::exists(path, ec)) throw InputError(argument, "cannot open file '" + path + "' (it does not exist)");
  if (!fs::is_regular_file(path, ec)) throw InputError(argument, "'" + path + "' is not a regular file");
  if (const auto bytes = fs::file_size(path, ec); !ec && bytes > kMaxJsonFileBytes)
    throw InputError(argument, "'" + path + "' is " + std::to_string(bytes) + " bytes; expected a JSON file of at most " +
                                   std::to_string(kMaxJsonFileBytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(argument, "cannot open file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(argument, "cannot read file '" + path + "'");
  return parse_json_text(ss.str(), argument, "'" + path + "'");
}

namespace {

// The output folders held by an OutputFolderLock in this process, as absolute, lexically normal paths.
std::mutex g_roots_mu;
std::vector<fs::path> g_roots;

fs::path normal_absolute(const fs::path& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return (ec ? p : a).lexically_normal();
}

// Refuses a symbolic link among the folders strictly below a registered output root, down to `dir`.
void refuse_links_below_root(const std::string& dir, const std::string& argument) {
  const fs::path target = normal_absolute(dir);
  std::lock_guard<std::mutex> lock(g_roots_mu);
  for (const fs::path& root : g_roots) {
    const fs::path rel = target.lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..") continue;
    fs::path walk = root;
    for (const auto& part : rel) {
      if (part == ".") continue;
      walk /= part;
      std::error_code ec;
      if (fs::is_symlink(fs::symlink_status(walk, ec)))
        throw InputError(argument, "'" + walk.string() + "' is a symbolic link inside the output folder; infoflow-verify "
                                   "never writes through one (remove it, or choose another folder)");
    }
  }
}

}  // namespace

void ensure_directory(const std::string& dir, const std::string& argument) {
  if (dir.empty()) throw InputError(argument, "expected a folder name, got an empty string");
  refuse_links_below_root(dir, argument);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw InputError(argument, "cannot create the folder '" + dir + "'" + (ec ? " (" + ec.message() + ")" : ""));
  refuse_links_below_root(dir, argument);
}

namespace {
// umask can only be read by setting it: done once, before main (and so before any thread), never again.
const mode_t process_umask = [] {
  const mode_t m = ::umask(022);
  ::umask(m);
  return m;
}();
}  // namespace

void write_text_file_atomic(const std::string& path, const std::string& text, const std::string& argument) {
  if (path.empty()) throw InputError(argument, "expected a file name, got an empty string");
  const fs::path p(path);
  if (p.has_parent_path()) ensure_directory(p.parent_path().string(), argument);
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw InputError(argument, "'" + path + "' is a folder, expected a file name");
  // mkostemp creates a new file with O_CREAT | O_EXCL under a random name: it never opens what someone planted
  // there (a symbolic link included), and two writers never share a temporary.
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) throw InputError(argument, "cannot create a temporary file beside '" + path + "' (" + std::strerror(errno) + ")");
  const auto fail = [&](const std::string& why) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw InputError(argument, why);
  };
  // mkostemp makes the file private (0600); an output file gets the permissions an editor would give it (0666 less
  // the process's umask, read once at start-up).
  if (::fchmod(fd, 0666 & ~process_umask) != 0) fail("cannot set the permissions of '" + tmp + "'");
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("failed writing '" + tmp + "' (" + std::strerror(errno) + ")");
    written += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw InputError(argument, "failed writing '" + tmp + "'");
  }
  // rename replaces PATH itself, even when PATH is a symbolic link: it never writes through one.
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw InputError(argument, "cannot rename '" + tmp + "' to '" + path + "' (" + why + ")");
  }
}

int open_own_file(const std::string& path, int flags, const std::string& argument) {
  // O_NOFOLLOW: a symbolic link planted at PATH is refused, not followed. O_NONBLOCK: opening a FIFO planted
  // there does not wait for a writer (it is then refused as not a regular file).
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0) {
    if (errno == ELOOP)
      throw InputError(argument, "'" + path + "' is a symbolic link; infoflow-verify never writes through one "
                                 "(remove it, or choose another folder)");
    if (errno == ENOENT) return -1;
    throw InputError(argument, "cannot open '" + path + "' (" + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw InputError(argument, "'" + path + "' is not a regular file; expected a file infoflow-verify wrote");
  }
  // Another user's file, or a hard link to some other file: truncating or appending would act on that inode.
  if (st.st_uid != ::geteuid() || st.st_nlink != 1) {
    ::close(fd);
    throw InputError(argument, "'" + path + "' is " + (st.st_uid != ::geteuid() ? "another user's file" : "a hard link to another file") +
                                   "; expected a file infoflow-verify wrote (remove it, or choose another folder)");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string read_own_file(int fd, const std::string& path, const std::string& argument) {
  std::string text;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(argument, "cannot read '" + path + "' (" + std::strerror(errno) + ")");
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > kMaxJsonFileBytes)
      throw InputError(argument, "'" + path + "' is larger than " + std::to_string(kMaxJsonFileBytes) + " bytes");
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

void write_json_file(const std::string& path, const json& j, const std::string& argument) {
  write_text_file_atomic(path, j.dump(2) + "\n", argument);
}

OutputFolderLock::OutputFolderLock(const std::string& dir, const std::string& argument) {
  // Under MPI only the root writes results, so only the root holds the folder (workers write only the files of
  // the points they compute, which no other process writes).
  if (!is_root_process()) return;
  ensure_directory(dir, argument);
  const std::string lock_path = (fs::path(dir) / ".infoflow-lock").string();
  fd_ = open_own_file(lock_path, O_RDWR | O_CREAT, argument);
  if (fd_ < 0) throw InputError(argument, "cannot create the lock file '" + lock_path + "'");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(argument, "another infoflow-verify run is writing to '" + dir +
                                   "' (lock file .infoflow-lock is held); wait for it to finish or choose another --out");
  }
  root_ = normal_absolute(dir).string();
  std::lock_guard<std::mutex> lock(g_roots_mu);
  g_roots.emplace_back(root_);
}

OutputFolderLock::~OutputFolderLock() {
  if (!root_.empty()) {
    std::lock_guard<std::mutex> lock(g_roots_mu);
    for (auto it = g_roots.begin(); it != g_roots.end(); ++it)
      if (*it == root_) {
        g_roots.erase(it);
        break;
      }
  }
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
}

}  // namespace infoflow
