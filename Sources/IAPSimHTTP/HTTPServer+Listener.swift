import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPServer {
    /// A non-blocking listening socket on the first of `host`'s addresses that binds, and
    /// the port it got. Unless `remote`, only loopback addresses are tried.
    static func openListener(host: String, port: UInt16, remote: Bool) throws(HTTPServerError)
        -> (fd: Int32, port: UInt16)
    {
        var hints = SocketIO.streamHints(flags: AI_PASSIVE | AI_NUMERICSERV)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .cannotResolve(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var reason = "no address to listen on"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        var skipped = false
        while let address = candidate {
            candidate = address.pointee.ai_next
            guard remote || Loopback.isLoopback(address.pointee.ai_addr) else {
                skipped = true
                continue
            }
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard fd >= 0 else {
                reason = SocketIO.errorText(errno)
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            // A restarted server can take its port back while old connections linger in
            // TIME_WAIT; two live listeners on one port are still refused.
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Glibc)
                let listening =
                    bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 && Glibc.listen(fd, 511) == 0
            #else
                let listening =
                    bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 && Darwin.listen(fd, 511) == 0
            #endif
            guard listening, let bound = boundPort(fd) else {
                reason = SocketIO.errorText(errno)
                closeDescriptor(fd)
                continue
            }
            return (fd, bound)
        }
        if skipped, reason == "no address to listen on" { throw .notLoopback(host: host) }
        throw .cannotListen(host: host, port: port, reason: reason)
    }

    private static func boundPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer -> UInt16? in
            switch family {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            default: nil
            }
        }
    }
}
