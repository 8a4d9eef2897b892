// Module DoubleRatchet: the PQ-augmented double ratchet with header encryption of pqdr.md, as
// simplexmq's Crypto/Ratchet.hs runs it (X448 DH, sntrup761 KEM from Sources/CSNTRUP761).
//
// Flow (the agent's handshake):
//   Bob (creates the connection):   own = PQRatchet.generateReceiverParams(pqSupport: true)
//                                   sends own.publicParams (encoded()) in the invitation
//   Alice (joins):                  mine = PQRatchet.generateSenderParams(replyingTo: bobParams, pqSupport: true)
//                                   ratchet = PQRatchet.initSend(own: mine, peer: bobParams)
//                                   sends mine.publicParams and the first message, encrypted
//   Bob (on the reply):             ratchet = PQRatchet.initReceive(own: own, peer: aliceParams, pqSupport: true)
//                                   ratchet.decrypt(firstMessage)
// After every encrypt/decrypt the agent stores ratchet.serialized().
