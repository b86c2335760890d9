/**
 * 3DS authentications (reference 03): one row per simulated authentication, with the merchant and
 * transaction it was asked for and the decision taken (card checks, Auth Rules of the
 * THREE_DS_AUTHENTICATION stream, the simulator's CHALLENGE keyword). A PENDING_CHALLENGE one is
 * resolved once, to SUCCESS or DECLINE, by a challenge response or the simulated OTP entry, or
 * times out (DECLINE) when neither came within the challenge TTL.
 */
export interface ThreeDsAuthenticationsTable {
  program_id: string;
  token: string;
  card_token: string;
  account_token: string;
  /** DECLINE, SUCCESS or PENDING_CHALLENGE. */
  authentication_result: string;
  /** The challenge's status (challenge_metadata.status): PENDING until resolved; null when no challenge was triggered. */
  challenge_status: string | null;
  /** The phone the challenge's SMS OTP went to: the card's account holder's when it was issued (null: none, or no challenge). */
  challenge_phone_number: string | null;
  /** CUSTOMER_RULES when an Auth Rule decided, else LITHIC_DEFAULT. */
  decision_made_by: string;
  card_expiry_check: string;
  message_category: string;
  merchant_id: string;
  merchant_country: string;
  merchant_mcc: string;
  merchant_name: string;
  amount_cents: number;
  currency: string;
  created_ms: number;
}

/** Each program's 3DS Decisioning HMAC secret (migration 0040): made by its first retrieval or rotation, replaced by each rotation. */
export interface ThreeDsDecisioningSecretsTable {
  program_id: string;
  secret_encrypted: string;
}

export interface ThreeDsTables {
  three_ds_authentications: ThreeDsAuthenticationsTable;
  three_ds_decisioning_secrets: ThreeDsDecisioningSecretsTable;
}
