/** Mail delivery over SMTP (nodemailer's connection and MIME writer): the domain's `Mailer` for a real mail server. */
export { type Sender, type SmtpOptions, SmtpMailer, type SmtpServer } from "./smtp-mailer.ts"
