#include "numerics/util/record_seal.hpp"

#include "numerics/util/errors.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

namespace infoflow {

namespace {

constexpr std::size_t kKeyBytes = 32;

std::string key_file_path() {
  if (const char* p = std::getenv("INFOFLOW_KEY_FILE"); p && *p) return p;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/infoflow-verify/record-key";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/infoflow-verify/record-key";
  return "";
}

void random_bytes(unsigned char* out, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::getrandom(out + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw ContractError("RecordSeal", "getrandom failed (" + std::string(std::strerror(errno)) + ")");
    got += static_cast<std::size_t>(r);
  }
}

// Reads the key from `path`; nullopt (with `why`) when the file is absent or not fit to be trusted.
std::optional<std::string> read_key(const std::string& path, unsigned char* key, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    why = errno == ENOENT ? "absent" : errno == ELOOP ? "a symbolic link" : std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  std::optional<std::string> ok;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) why = "not a regular file";
  else if (st.st_uid != ::geteuid()) why = "owned by another user";
  else if ((st.st_mode & 077) != 0) why = "readable or writable by others (chmod 600 it)";
  else if (st.st_size != static_cast<off_t>(kKeyBytes)) why = "not " + std::to_string(kKeyBytes) + " bytes long";
  else if (::read(fd, key, kKeyBytes) != static_cast<ssize_t>(kKeyBytes)) why = "unreadable";
  else ok = path;
  ::close(fd);
  return ok;
}

// Creates the key file (folder 0700, file 0600) unless another process just did; returns false with `why`.
bool create_key(const std::string& path, std::string& why) {
  const std::filesystem::path p(path);
  const std::filesystem::path folder = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  const bool created = std::filesystem::create_directories(folder, ec);
  if (ec) {
    why = "cannot create its folder (" + ec.message() + ")";
    return false;
  }
  // A folder made here for the key is private; one that already existed (the user's own, $HOME) is left as it is.
  if (created) ::chmod(folder.c_str(), 0700);
  unsigned char key[kKeyBytes];
  random_bytes(key, kKeyBytes);
  std::string tmp = (folder / (p.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);  // mode 0600
  if (fd < 0) {
    why = "cannot create it (" + std::string(std::strerror(errno)) + ")";
    return false;
  }
  const bool written = ::write(fd, key, kKeyBytes) == static_cast<ssize_t>(kKeyBytes) && ::fsync(fd) == 0;
  ::close(fd);
  // link(2) fails if the name exists: of two processes creating the key at once, one wins and both read its key.
  const bool linked = written && (::link(tmp.c_str(), path.c_str()) == 0 || errno == EEXIST);
  ::unlink(tmp.c_str());
  if (!linked) why = "cannot write it";
  return linked;
}

}  // namespace

RecordSeal::RecordSeal() {
  const std::string path = key_file_path();
  std::string why = "no INFOFLOW_KEY_FILE, XDG_CONFIG_HOME or HOME";
  const bool from_file = !path.empty() && (read_key(path, key_, why) ||
                                           (why == "absent" && create_key(path, why) && read_key(path, key_, why)));
  if (from_file) {
    origin_ = path;
    return;
  }
  random_bytes(key_, kKeyBytes);
  origin_ = "a key of this run only: the key file " + (path.empty() ? std::string() : "'" + path + "' ") + "is " + why;
  std::fprintf(stderr,
               "warning: %s; checkpoints written by this run will not be resumed by another (set INFOFLOW_KEY_FILE to "
               "a private file to keep them)\n",
               origin_.c_str());
}

const RecordSeal& RecordSeal::instance() {
  static const RecordSeal seal;
  return seal;
}

namespace {
std::string to_hex(const unsigned char* bytes, unsigned int len) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) out += {hex[bytes[i] >> 4], hex[bytes[i] & 15]};
  return out;
}
}  // namespace

std::string sha256_hex(const std::string& text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr))
    throw ContractError("sha256_hex", "SHA-256 failed");
  return to_hex(md, len);
}

std::string RecordSeal::seal(const std::string& text) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key_, kKeyBytes, reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac, &len))
    throw ContractError("RecordSeal::seal", "HMAC-SHA256 failed");
  return to_hex(mac, len);
}

bool RecordSeal::verifies(const std::string& text, const std::string& seal_hex) const {
  const std::string expected = seal(text);
  return seal_hex.size() == expected.size() && CRYPTO_memcmp(seal_hex.data(), expected.data(), expected.size()) == 0;
}

}  // namespace infoflow
