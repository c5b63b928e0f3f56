import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether an address stays on this machine: 127.0.0.0/8, `::1`, or an IPv4 loopback address
/// mapped into IPv6 (`::ffff:127.0.0.1`). The server listens only there unless told otherwise,
/// and a client says when it sends data elsewhere.
public enum Loopback {
    /// Whether `host` is written as a loopback address, or is `localhost`. A name other than
    /// `localhost` is not judged here: what it resolves to is (`contains(_:)` on each address).
    public static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "localhost." { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return isLoopback(v4) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return isLoopback(v6) }
        return false
    }

    /// Whether the socket address `address` (IPv4 or IPv6) is a loopback address.
    static func isLoopback(_ address: UnsafePointer<sockaddr>) -> Bool {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { isLoopback($0.pointee.sin_addr) }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { isLoopback($0.pointee.sin6_addr) }
        default:
            return false
        }
    }

    private static func isLoopback(_ address: in_addr) -> Bool {
        UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    private static func isLoopback(_ address: in6_addr) -> Bool {
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return true }  // ::1
        // ::ffff:127.x.y.z
        return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }
}
