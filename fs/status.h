// Status is the result of every fallible hintfs operation, in the style of
// leveldb::Status: cheap when OK, carries a code and a one-line message
// otherwise. Device errors keep the errno a real drive would have produced so
// that the FUSE adapter can hand it straight to the kernel.
#ifndef HINTFS_FS_STATUS_H_
#define HINTFS_FS_STATUS_H_

#include <string>

namespace hintfs {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kNotFound,
    kCorruption,
    kNotSupported,
    kInvalidArgument,
    kIOError,
    kNoSpace,
    kBusy,
    kAlreadyExists,
  };

  Status() = default;

  static Status OK() { return Status(); }
  static Status NotFound(const std::string& msg) { return Status(Code::kNotFound, msg, 2); }
  static Status Corruption(const std::string& msg) { return Status(Code::kCorruption, msg, 5); }
  static Status NotSupported(const std::string& msg) { return Status(Code::kNotSupported, msg, 95); }
  static Status InvalidArgument(const std::string& msg) {
    return Status(Code::kInvalidArgument, msg, 22);
  }
  // errno_value is the POSIX error a real device or kernel would report (EIO by default).
  static Status IOError(const std::string& msg, int errno_value = 5) {
    return Status(Code::kIOError, msg, errno_value);
  }
  static Status NoSpace(const std::string& msg) { return Status(Code::kNoSpace, msg, 28); }
  static Status Busy(const std::string& msg) { return Status(Code::kBusy, msg, 16); }
  static Status AlreadyExists(const std::string& msg) {
    return Status(Code::kAlreadyExists, msg, 17);
  }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsNoSpace() const { return code_ == Code::kNoSpace; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsAlreadyExists() const { return code_ == Code::kAlreadyExists; }

  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // The POSIX errno matching this status (0 when OK).
  int errno_value() const { return errno_; }

  // "IO error: write not at write pointer (zone 3)".
  std::string ToString() const;
  // The same status with "what: " before its message (OK stays OK).
  Status Prefixed(const std::string& what) const {
    return ok() ? *this : Status(code_, what + ": " + message_, errno_);
  }

 private:
  Status(Code code, const std::string& msg, int err) : code_(code), message_(msg), errno_(err) {}

  Code code_ = Code::kOk;
  std::string message_;
  int errno_ = 0;
};

}  // namespace hintfs

#endif  // HINTFS_FS_STATUS_H_
