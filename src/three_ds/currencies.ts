/**
 * The purchase currencies a 3-D Secure authentication takes (SDK 0.119: "3-character alphabetic
 * ISO 4217 currency code"), with their minor units, the EMV 3DS `purchaseExponent`.
 *
 * ISO 4217's list one as of 2025 (with the codes withdrawn since 2023 that merchants may still
 * send: ANG, CUC, SLL, ZWL), less the codes EMV 3DS excludes as a purchase currency (its table of
 * excluded currency codes: the bond units XBA to XBD, the metals XAG, XAU, XPD, XPT, the XDR, the
 * testing code XTS and "no currency", XXX).
 */

/** Codes whose minor units are not 2. */
const EXPONENTS_OTHER_THAN_2: Readonly<Record<string, number>> = {
  ...Object.fromEntries('BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' ').map((code) => [code, 0])),
  ...Object.fromEntries('BHD IQD JOD KWD LYD OMR TND'.split(' ').map((code) => [code, 3])),
  CLF: 4,
  UYW: 4,
};

/** The other codes (2 minor units; XSU and XUA have none in ISO 4217, and are given 2). */
const EXPONENT_2_CODES =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW ' +
  'CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ' +
  'ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR ' +
  'MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP ' +
  'STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG XSU XUA YER ZAR ZMW ZWG ZWL';

const PURCHASE_CURRENCY_EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...EXPONENT_2_CODES.split(' ').map((code): [string, number] => [code, 2]),
  ...Object.entries(EXPONENTS_OTHER_THAN_2),
]);

export function isPurchaseCurrency(code: string): boolean {
  return PURCHASE_CURRENCY_EXPONENTS.has(code);
}

/** The ISO 4217 minor units of a purchase currency; 2 for a code stored before codes were checked. */
export function currencyExponent(code: string): number {
  return PURCHASE_CURRENCY_EXPONENTS.get(code) ?? 2;
}
