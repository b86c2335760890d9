/**
 * ABA routing numbers: nine digits whose weighted sum, with weights 3 7 1 repeating, is a multiple
 * of 10. The check catches every single-digit error and most transpositions before a payment
 * would be refused by the bank. All zeros passes the checksum but is no bank's number: refused.
 */
const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

function weightedSum(digits: string): number {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) sum += Number(digits[index]) * (WEIGHTS[index] as number);
  return sum;
}

export function isValidRoutingNumber(routingNumber: string): boolean {
  return /^[0-9]{9}$/.test(routingNumber) && routingNumber !== '000000000' && weightedSum(routingNumber) % 10 === 0;
}

/** The routing number whose first eight digits are `eightDigits`: they and the check digit that makes the checksum hold. */
export function withCheckDigit(eightDigits: string): string {
  return `${eightDigits}${(10 - (weightedSum(eightDigits) % 10)) % 10}`;
}
