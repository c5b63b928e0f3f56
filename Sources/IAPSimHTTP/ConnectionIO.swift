import IAPSimTLS

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a connection's bytes come and go: straight on the socket, or through the TLS a
/// `CONNECT` tunnel speaks. Every call is bounded by its deadline.
protocol ConnectionIO {
    /// Waits until input is there to read (or the client hung up, which a read reports).
    mutating func waitForInput(until deadline: ContinuousClock.Instant) -> SocketIO.Wait
    mutating func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) -> SocketIO.Received
    mutating func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool
    /// Stops writing and reads what still comes, for a close that loses no response.
    mutating func drainBeforeClose(for duration: Duration)
}

struct PlainConnectionIO: ConnectionIO {
    let fd: Int32

    func waitForInput(until deadline: ContinuousClock.Instant) -> SocketIO.Wait {
        SocketIO.wait(fd, for: Int32(POLLIN), until: deadline)
    }

    func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) -> SocketIO.Received {
        SocketIO.receive(fd, into: &buffer, until: deadline)
    }

    func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        SocketIO.send(fd, bytes, until: deadline)
    }

    func drainBeforeClose(for duration: Duration) { SocketIO.drainBeforeClose(fd, for: duration) }
}

/// Requests inside a tunnel: decrypted as they are read, encrypted as answers are written.
struct TLSConnectionIO: ConnectionIO {
    let fd: Int32
    var stream: TLSServerStream<SocketTransport>

    func waitForInput(until deadline: ContinuousClock.Instant) -> SocketIO.Wait {
        if stream.hasBufferedData || stream.transport.hasPending { return .ready }
        return SocketIO.wait(fd, for: Int32(POLLIN), until: deadline)
    }

    mutating func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) -> SocketIO.Received {
        do {
            let count = try stream.read(into: &buffer, until: deadline)
            return count == 0 ? .closed : .bytes(count)
        } catch .timedOut {
            return .timedOut
        } catch .connectionClosed {
            return .closed
        } catch {
            return .failed
        }
    }

    mutating func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        do {
            try stream.write(bytes, until: deadline)
            return true
        } catch {
            return false
        }
    }

    mutating func drainBeforeClose(for duration: Duration) {
        stream.close(until: .now + duration)
        SocketIO.drainBeforeClose(fd, for: duration)
    }
}

/// The socket as TLS's transport, handing over first what the client sent right after its
/// `CONNECT` (some clients start their handshake without waiting for the 200).
struct SocketTransport: TLSTransport {
    let fd: Int32
    var pending: [UInt8]

    var hasPending: Bool { !pending.isEmpty }

    mutating func receive(into buffer: inout [UInt8], until deadline: ContinuousClock.Instant) -> TLSTransportReceived {
        if !pending.isEmpty {
            let count = min(buffer.count, pending.count)
            buffer.replaceSubrange(0..<count, with: pending[0..<count])
            pending.removeFirst(count)
            return .bytes(count)
        }
        switch SocketIO.receive(fd, into: &buffer, until: deadline) {
        case .bytes(let count): return .bytes(count)
        case .closed: return .closed
        case .timedOut: return .timedOut
        case .failed: return .failed
        }
    }

    mutating func send(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) -> Bool {
        SocketIO.send(fd, bytes, until: deadline)
    }
}
