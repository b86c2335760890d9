/**
 * ABA routing numbers: nine digits whose weighted sum, with weights 3 7 1 repeating, is a multiple
 * of 10. The check catches every single-digit error and most transpositions before a payment
 * would be refused by the bank.
 */
const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

export function isValidRoutingNumber(routingNumber: string): boolean {
  if (!/^[0-9]{9}$/.test(routingNumber)) return false;
  let sum = 0;
  for (let index = 0; index < 9; index++) sum += Number(routingNumber[index]) * (WEIGHTS[index] as number);
  return sum % 10 === 0;
}
