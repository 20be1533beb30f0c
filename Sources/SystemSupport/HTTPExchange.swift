#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// A sync engine's REST API (Syncthing's, on 127.0.0.1) is read with one
// HTTP/1.1 request per connection, `Connection: close`, every step bounded
// by one deadline. Written here rather than taken from FoundationNetworking
// because the layers below DocumentObject do not link Foundation's networking
// (libcurl and the thread URLSession runs), because a status request must
// give up at a deadline that covers connecting, sending and reading alike,
// and because the event loop waits on the connection's descriptor itself.

/// An HTTP request to a server at a numeric address.
package struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    package var method: String
    /// `127.0.0.1:8384`, `[::1]:8384`, `localhost:8384`; `0.0.0.0` and `[::]`
    /// (a server listening everywhere) are reached on loopback. An
    /// `http://` prefix and a trailing `/` are allowed.
    package var address: String
    /// The path and query, `/rest/db/status?folder=ID`.
    package var target: String
    /// Header fields sent besides `Host`, `Connection` and `Content-Length`.
    package var headers: [(name: String, value: String)]
    /// The body, sent with its length.
    package var body: [UInt8]

    /// A request; nothing is sent until `HTTPExchange.perform`.
    package init(method: String = "GET", address: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.address = address
        self.target = target
        self.headers = headers
        self.body = body
    }
}

/// An HTTP response: its status code, header fields (names in lower case)
/// and body (chunked transfer coding removed).
package struct HTTPResponse: Sendable {
    /// 200, 403, 404, …
    package var status: Int
    /// Each field by its lower-case name; a repeated field keeps its last value.
    package var headers: [String: String]
    /// The body's bytes.
    package var body: [UInt8]
}

/// Why an HTTP exchange failed.
package struct HTTPFailure: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    package enum Kind: Sendable, Equatable {
        /// The address is not one this client can reach (not numeric, no port).
        case address
        /// Nothing answers there (connection refused or reset, closed early).
        case unreachable
        /// The deadline passed before the response was whole.
        case timedOut
        /// What came back is not an HTTP/1.x response.
        case malformed
        /// The response is longer than the limit.
        case tooLarge
        /// The `cancel` descriptor became readable first.
        case cancelled
    }

    /// What went wrong.
    package var kind: Kind
    /// `ADDRESS: reason`.
    package var description: String
}

/// One HTTP/1.1 request and its response over a new TCP connection.
package enum HTTPExchange {
    /// Sends `request` and reads the whole response, within `timeout`
    /// seconds in all (connecting, sending, reading), at most `limit` bytes;
    /// gives up as soon as `cancel` (a `WakeSignal`'s descriptor) is readable.
    ///
    /// - Throws: `HTTPFailure`: `.address`, `.unreachable`, `.timedOut`,
    ///   `.malformed`, `.tooLarge`, `.cancelled`. Blocks the calling thread up to `timeout`.
    package static func perform(_ request: HTTPRequest, timeout: Double, limit: Int = 64 << 20, cancel: Int32? = nil) throws(HTTPFailure)
        -> HTTPResponse
    {
        let deadline = monotonicNow() + timeout
        let exchange = try PendingHTTPExchange(request, timeout: timeout, limit: limit, cancel: cancel)
        defer { exchange.close() }
        return try exchange.wait(until: deadline)
    }

    /// The request line and header fields of `request`, ending with the blank line.
    static func head(of request: HTTPRequest, host: String) -> [UInt8] {
        var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        if !request.body.isEmpty || request.method == "POST" { head += "Content-Length: \(request.body.count)\r\n" }
        return Array((head + "\r\n").utf8)
    }

    /// The response in `bytes` once it is whole; nil while more must come.
    /// `complete`: the server closed the connection (a body without a
    /// length ends there).
    static func parse(_ bytes: [UInt8], complete: Bool, shown: String) throws(HTTPFailure) -> HTTPResponse? {
        guard let headEnd = find([13, 10, 13, 10], in: bytes, from: 0) else {
            if complete {
                throw HTTPFailure(kind: bytes.isEmpty ? .unreachable : .malformed, description: "\(shown): the answer is not an HTTP response")
            }
            return nil
        }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (100...999).contains(status) else {
            throw HTTPFailure(kind: .malformed, description: "\(shown): the answer is not an HTTP response (it begins '\(statusLine.prefix(40))')")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw HTTPFailure(kind: .malformed, description: "\(shown): a header line without a colon: '\(line.prefix(40))'")
            }
            headers[line[..<colon].lowercased()] = trimmed(line[line.index(after: colon)...])
        }
        let bodyStart = headEnd + 4
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            // Not taken apart until its last chunk (with no trailer) may be in: a long body arrives in many reads.
            guard complete || bytes.count - bodyStart >= 5 && bytes.suffix(5).elementsEqual([0x30, 13, 10, 13, 10]) else { return nil }
            return try unchunked(bytes, from: bodyStart, complete: complete, shown: shown).map {
                HTTPResponse(status: status, headers: headers, body: $0)
            }
        }
        if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else {
                throw HTTPFailure(kind: .malformed, description: "\(shown): Content-Length '\(lengthText.prefix(20))' is not a length")
            }
            guard bytes.count - bodyStart >= length else {
                if complete { throw HTTPFailure(kind: .unreachable, description: "\(shown): the connection closed before the body was whole") }
                return nil
            }
            return HTTPResponse(status: status, headers: headers, body: Array(bytes[bodyStart..<bodyStart + length]))
        }
        return complete ? HTTPResponse(status: status, headers: headers, body: Array(bytes[bodyStart...])) : nil
    }

    /// The body of a chunked response starting at `start`, once its last chunk is in.
    private static func unchunked(_ bytes: [UInt8], from start: Int, complete: Bool, shown: String) throws(HTTPFailure) -> [UInt8]? {
        var body: [UInt8] = []
        var index = start
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: index) else { break }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(trimmed(sizeText), radix: 16), size >= 0 else {
                throw HTTPFailure(kind: .malformed, description: "\(shown): a chunk size '\(sizeText.prefix(20))' is not hexadecimal")
            }
            if size == 0 { return body }
            let dataStart = lineEnd + 2
            guard bytes.count >= dataStart + size + 2 else { break }
            body += bytes[dataStart..<dataStart + size]
            index = dataStart + size + 2
        }
        if complete { throw HTTPFailure(kind: .unreachable, description: "\(shown): the connection closed before the last chunk") }
        return nil
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: Substring) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }

    /// Where `pattern` first occurs in `bytes` at or after `start`.
    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0], bytes[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}

/// An HTTP exchange whose response is read as it arrives, for an event
/// loop: `init` connects and sends (bounded by a deadline: on loopback a
/// matter of microseconds), then the loop waits on `descriptor` and calls
/// `readAvailable()` each time it is readable, until the response is whole;
/// or the caller does other work while the server answers and then `wait(until:)`s.
package final class PendingHTTPExchange {
    /// The connection's descriptor, to wait on for reading.
    package var descriptor: Int32 { connection.descriptor }
    private let connection: Connection
    private let shown: String
    private let limit: Int
    private var received: [UInt8] = []
    private var closed = false

    /// Connects to `request.address` and sends `request`, within `timeout` seconds.
    ///
    /// - Throws: `HTTPFailure` as `HTTPExchange.perform`.
    package init(_ request: HTTPRequest, timeout: Double, limit: Int = 64 << 20, cancel: Int32? = nil) throws(HTTPFailure) {
        let deadline = monotonicNow() + timeout
        let endpoint = try Endpoint(request.address)
        connection = try Connection(to: endpoint, shown: request.address, deadline: deadline, cancel: cancel)
        shown = request.address
        self.limit = limit
        do throws(HTTPFailure) {
            try connection.send(HTTPExchange.head(of: request, host: endpoint.hostHeader) + request.body, deadline: deadline)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Reads what has arrived without waiting: the response once it is
    /// whole, nil while more must come.
    ///
    /// - Throws: `HTTPFailure` `.unreachable` (closed early), `.malformed`, `.tooLarge`.
    package func readAvailable() throws(HTTPFailure) -> HTTPResponse? {
        while true {
            if let response = try HTTPExchange.parse(received, complete: false, shown: shown) { return response }
            switch try connection.receiveAvailable(into: &received, limit: limit) {
            case .some(true): continue
            case .some(false):
                guard let response = try HTTPExchange.parse(received, complete: true, shown: shown) else {
                    throw HTTPFailure(kind: .unreachable, description: "\(shown): the connection closed before the response was whole")
                }
                return response
            case nil: return nil
            }
        }
    }

    /// Waits for the whole response until `deadline` (`monotonicNow()`'s
    /// clock), or until the `cancel` descriptor given to `init` is readable.
    ///
    /// - Throws: `HTTPFailure` as `HTTPExchange.perform`.
    package func wait(until deadline: Double) throws(HTTPFailure) -> HTTPResponse {
        while true {
            if let response = try HTTPExchange.parse(received, complete: false, shown: shown) { return response }
            guard try connection.receive(into: &received, deadline: deadline, limit: limit) else {
                guard let response = try HTTPExchange.parse(received, complete: true, shown: shown) else {
                    throw HTTPFailure(kind: .unreachable, description: "\(shown): the connection closed before the response was whole")
                }
                return response
            }
        }
    }

    /// Closes the connection; once only.
    package func close() {
        guard !closed else { return }
        closed = true
        closeDescriptor(connection.descriptor)
    }
}

/// A numeric address and port.
private struct Endpoint {
    var family: Int32
    var host: String
    var port: UInt16

    var hostHeader: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    init(_ text: String) throws(HTTPFailure) {
        var rest = Substring(text)
        if rest.hasPrefix("http://") { rest = rest.dropFirst(7) }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        var host: Substring
        var portText: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else {
                throw HTTPFailure(kind: .address, description: "\(text): not an address with a port")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            portText = rest[rest.index(close, offsetBy: 2)...]
        } else {
            guard let colon = rest.lastIndex(of: ":") else { throw HTTPFailure(kind: .address, description: "\(text): not an address with a port") }
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        guard let port = UInt16(portText), port > 0 else { throw HTTPFailure(kind: .address, description: "\(text): '\(portText)' is not a port") }
        switch host {
        case "localhost", "0.0.0.0", "": host = "127.0.0.1"
        case "::": host = "::1"
        default: break
        }
        var probe = in6_addr()
        if inet_pton(AF_INET, String(host), &probe) == 1 {
            family = AF_INET
        } else if inet_pton(AF_INET6, String(host), &probe) == 1 {
            family = AF_INET6
        } else {
            throw HTTPFailure(kind: .address, description: "\(text): '\(host)' is not a numeric address (names are not looked up)")
        }
        self.host = String(host)
        self.port = port
    }
}

/// A connected, non-blocking TCP socket.
private struct Connection {
    let descriptor: Int32
    let cancel: Int32?

    init(to endpoint: Endpoint, shown: String, deadline: Double, cancel: Int32?) throws(HTTPFailure) {
        self.cancel = cancel
        #if canImport(Darwin)
        let descriptor = socket(endpoint.family, SOCK_STREAM, 0)
        #else
        let descriptor = socket(endpoint.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw HTTPFailure(kind: .unreachable, description: "\(shown): cannot make a socket: \(Self.reason())") }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var result: Int32
        if endpoint.family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            _ = inet_pton(AF_INET, endpoint.host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = endpoint.port.bigEndian
            _ = inet_pton(AF_INET6, endpoint.host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        if result != 0 {
            guard errno == EINPROGRESS else {
                let reason = Self.reason()
                closeDescriptor(descriptor)
                throw HTTPFailure(kind: .unreachable, description: "\(shown): \(reason)")
            }
            do throws(HTTPFailure) {
                try Self.wait(descriptor, for: Int16(POLLOUT), deadline: deadline, cancel: cancel, what: "\(shown): no connection")
            } catch {
                closeDescriptor(descriptor)
                throw error
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else {
                closeDescriptor(descriptor)
                throw HTTPFailure(kind: .unreachable, description: "\(shown): \(String(cString: strerror(error)))")
            }
        }
        self.descriptor = descriptor
    }

    func send(_ bytes: [UInt8], deadline: Double) throws(HTTPFailure) {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Darwin)
            let flags: Int32 = 0
            #else
            let flags = Int32(MSG_NOSIGNAL)
            #endif
            let count = bytes[offset...].withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count, flags) }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try Self.wait(descriptor, for: Int16(POLLOUT), deadline: deadline, cancel: cancel, what: "the request was not sent")
            } else {
                throw HTTPFailure(kind: .unreachable, description: "cannot send the request: \(Self.reason())")
            }
        }
    }

    /// Appends what arrives to `received`; false at the end of the stream.
    func receive(into received: inout [UInt8], deadline: Double, limit: Int) throws(HTTPFailure) -> Bool {
        while true {
            if let arrived = try receiveAvailable(into: &received, limit: limit) { return arrived }
            try Self.wait(descriptor, for: Int16(POLLIN), deadline: deadline, cancel: cancel, what: "no whole response")
        }
    }

    /// Appends what has arrived to `received` without waiting: true when
    /// bytes came, false at the end of the stream, nil when nothing is there yet.
    func receiveAvailable(into received: inout [UInt8], limit: Int) throws(HTTPFailure) -> Bool? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                guard received.count + count <= limit else {
                    throw HTTPFailure(kind: .tooLarge, description: "the response is longer than \(limit) bytes")
                }
                received += chunk[..<count]
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            if errno == ECONNRESET { return false }
            throw HTTPFailure(kind: .unreachable, description: "cannot read the response: \(Self.reason())")
        }
    }

    /// Waits until `descriptor` is ready for `events`.
    ///
    /// - Throws: `HTTPFailure` `.timedOut` when the deadline passes first,
    ///   `.cancelled` when `cancel` becomes readable first; `what` says what was not done.
    static func wait(_ descriptor: Int32, for events: Int16, deadline: Double, cancel: Int32?, what: String) throws(HTTPFailure) {
        while true {
            let left = deadline - monotonicNow()
            guard left > 0 else { throw HTTPFailure(kind: .timedOut, description: "\(what) before the deadline") }
            var entries = [pollfd(fd: descriptor, events: events, revents: 0)]
            if let cancel { entries.append(pollfd(fd: cancel, events: Int16(POLLIN), revents: 0)) }
            let count = entries.withUnsafeMutableBufferPointer {
                poll($0.baseAddress, nfds_t($0.count), Int32(min(left * 1000, Double(Int32.max)).rounded(.up)))
            }
            if count > 0 {
                if entries.count > 1, entries[1].revents != 0 { throw HTTPFailure(kind: .cancelled, description: "\(what): cancelled") }
                return
            }
            if count < 0, errno != EINTR { return }  // The next call says what is wrong.
        }
    }

    static func reason() -> String { String(cString: strerror(errno)) }
}

/// `send(2)`, under a name that does not clash with `Connection.send`.
private func sendBytes(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, buffer, count, flags)
}
