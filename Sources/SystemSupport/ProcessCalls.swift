#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The descriptors every process starts with.
package enum StandardDescriptor {
    /// Standard input (`STDIN_FILENO`).
    package static let input: Int32 = STDIN_FILENO
    /// Standard output (`STDOUT_FILENO`).
    package static let output: Int32 = STDOUT_FILENO
    /// Standard error (`STDERR_FILENO`).
    package static let error: Int32 = STDERR_FILENO
}

/// Terminals.
package enum Terminal {
    /// Whether `descriptor` is open on a terminal. The corresponding C function is `isatty`.
    package static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Whether `path` names a terminal: opened for writing without waiting
    /// (a FIFO without a reader) and without becoming the controlling
    /// terminal, then asked; false when it cannot be opened.
    /// The corresponding C functions are `open` and `isatty`.
    package static func isTerminal(path: String) -> Bool {
        let descriptor = RawFileName.withPath(path) { open($0, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return isatty(descriptor) == 1
    }
}

/// The process's environment.
package enum Environment {
    /// The value of the environment variable `name`, or nil when it is not
    /// set. The corresponding C function is `getenv`.
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

/// When processes started.
package enum ProcessStart {
    /// When process `id` started, in seconds since 1970, to the clock tick;
    /// nil when there is no such process or it cannot be told (on Linux it
    /// is read from `/proc/ID/stat`; elsewhere nil).
    package static func seconds(of id: Int32) -> Double? {
        #if os(Linux)
        let descriptor = open("/proc/\(id)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        // The name in parentheses may hold spaces: the fields after its last `)`, from the third (state) on.
        guard let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = buffer[(close + 1)..<count].split(separator: UInt8(ascii: " "))
        // Field 22, starttime: clock ticks after boot.
        guard fields.count > 19, let ticks = Double(String(decoding: fields[19], as: UTF8.self)) else { return nil }
        let hertz = Double(sysconf(Int32(_SC_CLK_TCK)))
        var sinceBoot = timespec(), now = timespec()
        guard hertz > 0, clock_gettime(CLOCK_BOOTTIME, &sinceBoot) == 0, clock_gettime(CLOCK_REALTIME, &now) == 0 else { return nil }
        let bootSeconds = Double(sinceBoot.tv_sec) + Double(sinceBoot.tv_nsec) / 1e9
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 - (bootSeconds - ticks / hertz)
        #else
        return nil
        #endif
    }
}

/// The running process itself.
package enum CurrentProcess {
    /// Ends the process with `status` at once, running the `atexit` handlers
    /// and flushing C's buffers. The corresponding C function is `exit`.
    package static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status)
        #elseif canImport(Musl)
        Musl.exit(status)
        #elseif canImport(Darwin)
        Darwin.exit(status)
        #endif
    }

    /// The effective user ID. The corresponding C function is `geteuid`.
    package static var effectiveUserID: UInt32 { UInt32(geteuid()) }
}

/// SIGPIPE, the signal a write to a pipe (or socket) with no reader left sends.
package enum BrokenPipe {
    /// Makes a write to a pipe with no reader fail with `EPIPE` rather than
    /// end the process at once, so the writer can stop as it chooses. The
    /// process starts no other program, so nothing inherits the ignored
    /// signal. The corresponding C function is `signal`.
    package static func ignore() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Whether `code` (an `errno`) says the reader of the pipe is gone (`EPIPE`).
    package static func isBrokenPipe(_ code: Int32) -> Bool {
        code == EPIPE
    }
}

/// Comparing bytes in memory.
package enum MemoryBytes {
    /// Whether the `count` bytes at `first` and at `second` are the same.
    /// The corresponding C function is `memcmp`.
    package static func equal(_ first: UnsafeRawPointer, _ second: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(first, second, count) == 0
    }
}

/// A time of day on a date, as the local time zone shows it.
package struct LocalTime: Equatable, Sendable {
    /// The year (1980, say), the month (1 to 12) and the day of the month (1 to 31).
    package var year: Int
    package var month: Int
    package var day: Int
    /// The hour (0 to 23), the minute and the second.
    package var hour: Int
    package var minute: Int
    package var second: Int

    package init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
    }

    /// The local time `seconds` after 1970-01-01 00:00 UTC; nil when the
    /// system cannot say. The corresponding C function is `localtime_r`.
    package init?(secondsSince1970 seconds: Int64) {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return nil }
        self.init(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }

    /// The seconds since 1970-01-01 00:00 UTC of this local time (daylight
    /// saving time as the zone had it then; fields out of range carried into
    /// the next, as 31 February is 3 March); nil when it names no time the
    /// system can give. The corresponding C function is `mktime`.
    package var secondsSince1970: Int64? {
        var parts = tm()
        parts.tm_year = Int32(truncatingIfNeeded: year - 1900)
        parts.tm_mon = Int32(truncatingIfNeeded: month - 1)
        parts.tm_mday = Int32(truncatingIfNeeded: day)
        parts.tm_hour = Int32(truncatingIfNeeded: hour)
        parts.tm_min = Int32(truncatingIfNeeded: minute)
        parts.tm_sec = Int32(truncatingIfNeeded: second)
        parts.tm_isdst = -1
        let seconds = mktime(&parts)
        return seconds == -1 ? nil : Int64(seconds)
    }
}

/// C's number formatting, for text that must match C's byte for byte.
package enum CNumberFormat {
    /// C's `%f` of `value` (six decimals), as `String(format: "%f")` gives
    /// it, without Foundation's formatting (and the ICU it brings).
    /// The corresponding C function is `vsnprintf`.
    package static func fixedPoint(_ value: Double) -> String {
        // The longest %f of a Double, -DBL_MAX, is 317 characters and the NUL.
        var buffer = [CChar](repeating: 0, count: 320)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            withVaList([value]) { vsnprintf(pointer.baseAddress, pointer.count, "%f", $0) }
        }
        precondition(count >= 0 && count < buffer.count, "%f of \(value) does not fit in \(buffer.count) bytes")
        return String(decoding: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// C's mathematics (`libm`), which the standard library does not offer.
package enum CMath {
    /// The base-10 logarithm of `value`. The corresponding C function is `log10`.
    package static func log10(_ value: Double) -> Double {
        #if canImport(Glibc)
        Glibc.log10(value)
        #elseif canImport(Musl)
        Musl.log10(value)
        #elseif canImport(Darwin)
        Darwin.log10(value)
        #endif
    }
}
