import IAPSimCrypto
import IAPSimKit

/// An RSA receipt chain made from a committed RSA-2048 key, TEST ONLY (made with `openssl
/// genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`): one key at every level, so tests that
/// sign receipts do not wait for three keys to be made in a debug build (several seconds each).
/// `RSATests.generatedKey` in IAPSimCryptoTests and `certs rotate` in SignedDataTests make real ones.
public enum ReceiptChainFixture {
    public static let keyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCNifXplDBDHjfy
        3IC9SbryDyWN0MQXASvy+bS7gbiN5Zc5cd6H5nGRxFKecdFOJSwevtZ55N2lMcrj
        3ixTwoCiA6rsqKzuP44mU9Usznvk2bAl92T0yXiwdRsEssj94WkvRuJRsRcGMAIo
        dCrlhMYN7ss0kbj42CMH5/tly7Wez8OLV1OvEz+CYAxIwhHKp0trkZAi3GaeFsS/
        HnTt4Ax0sWrdE6rJh/jzv009ZWWMiSbEoUci2tPuZ0QuLOykgWVEPJIltGduA/ZK
        3pvdNmRUzb7Iu8K6e7TwoIOzyUQJ2feZL6e1YX9rYli8g0B94OuRIN4Jp1Zn5gQ6
        4v19rXkzAgMBAAECggEAAfVoudrFSSqPpTxT9Ns1i3RPIWDEJGvyTZ5L6vLv/Xoa
        HQ1ySTUxJRpOMBWsuA1lhgiBsl9GIbS8VmnCtvCbH94WfveiXIv0a2KU+L45MWNL
        DgJClC8yqTCuQueyrr5+e7U9ryX6FQO+zRW7ouY8X3edd3vbpI4QGI5pneAsGgiT
        zEORRnzw2/VRV5o3ttxSvDwsmPePGJlocuwRVrU1kq00IxsTuVlpiSq4Pg5bqdey
        t64RLJEd5yprreXGVdqLObonPDdwmJHDqgnxcKPA81Af88r9Zvr4kvmFZwefg5ft
        e9x4p0stskF2PYPf3LPuawWZgB2xjnogVNHPGwhhoQKBgQC+5g+iCJW6TpIfSu1U
        eRMA0U0/8Lg11a4er5xNWjbh2X0f+plYV4cjddjxHIgP4NQXxBKw7wc5y+elIkKf
        WSaqFN1mBGOMecAfCMl8zuRWTRLNcZyfa0hKpZ4dUphVYHkITG4kKa2VrqXuHf2T
        sQlkMNrU+5nzn7d9nKhqRvYoYQKBgQC9zqqjEOUne7GKOitZ7fNgV6y+8eOwGmIc
        f31a/RVUj98k6iIJui5QKpJG7+siuxq2yGxuM45nyzmfnYlffb0RKVjztMBfFXOB
        iwK3a73euX3qrX/UvBdkPp1SUtRei201LRnmOJ6NNeCiASVb18yd1JPcAIbOOWWT
        vQaEEVK6EwKBgQCemGWeeUFjYglVxBr+FgRqpnhmSafQ2fBpf/376Zo08kpYugqR
        8U3NcQfF8K09e8zY3cWlhz/ajYOqlpcA6cEMhn8VVUobF788SUGT1hKvfCLF2cCE
        VU3e7k85DziNnbOP6GeM1a9n7oveEr5r6CXkPg5f6ZOSaju4OOFWQhQZoQKBgF/a
        5A/v81pKPHILSGNlKRjJjkLsE8mWuV+c/uiZkVEgS1fwKfpxnPv9U9whQ8VJaodO
        lnvc65j9Z/905rBj5ryo/fQtn00lnyyX0GpjLgMx+CYxMrJzvvhwKrEthXStwxws
        x7ydcWzs/aGzJHPKetpmRbnARlQVZngC6Sx/NyEjAoGBAJG5g7PCliiviSQeqd9k
        XFzxrOojyFOj2PcrLi7TiXFVUUWLlw+u/6HlpuPJ8d9TYNVqH3gqfKyJBNYMuYOT
        a1oFNndoE+chvxwuIzKfMrvWTwIctdgraTlGiuQb7oJCCZ48hwT9k3AnWz5hP2Ft
        oWB6yqK8u94BE/U1ZJFkfAWy
        -----END PRIVATE KEY-----
        """

    public static func make() throws -> ReceiptSigningChain {
        let key = try RSAPrivateKey(pemRepresentation: keyPEM)
        return try ReceiptSigningChain(rootKey: key, intermediateKey: key, leafKey: key)
    }
}
