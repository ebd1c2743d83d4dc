#pragma once
// Seals what the toolkit writes to a folder and later trusts as its own finished work: the sweep checkpoints'
// records and certify's search state. A seal is HMAC-SHA256 (OpenSSL) of the record's text under a key private
// to this user, so a record written by someone else, or edited, does not verify and is not trusted (a sweep
// recomputes the point; certify refuses the file). A plain digest would not do: whoever forges a record can
// recompute a digest. (Jupyter trusts notebooks the same way: an HMAC under a secret in the user's own folder.)
//
// The key: 32 random bytes in the file named by INFOFLOW_KEY_FILE, else $XDG_CONFIG_HOME/infoflow-verify/record-key,
// else $HOME/.config/infoflow-verify/record-key, created (mode 0600, folder 0700) on first use. A key file that is
// a symbolic link, not the user's own, readable by others, or of the wrong size is not used. Without a usable
// key file the process uses a key of its own, for this run only, and says so: its checkpoints are then resumed by
// no later run (finished points are recomputed, never trusted unsealed). docs/input-limits.md says what is
// trusted.
#include <string>

namespace infoflow {

/// SHA-256 of `text` as 64 lowercase hex digits: names a document (a certificate's model), vouches for nothing.
std::string sha256_hex(const std::string& text);

class RecordSeal {
 public:
  /// The process's seal, with its key read or created on first use (thread-safe).
  static const RecordSeal& instance();

  /// The seal of `text`: 64 lowercase hex digits.
  std::string seal(const std::string& text) const;
  /// True when `seal` is the seal of `text` (compared in constant time).
  bool verifies(const std::string& text, const std::string& seal) const;
  /// Where the key is, or why this run uses a key of its own.
  const std::string& key_origin() const { return origin_; }

 private:
  RecordSeal();
  unsigned char key_[32] = {};
  std::string origin_;
};

}  // namespace infoflow
