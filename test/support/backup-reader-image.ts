import { gitSyncTestImage } from './git-sync-image.ts'

/**
 * The image the tests run backup reader pods from, in place of BACKUP_READER_IMAGE's default
 * busybox (no registry in CI): $BACKUP_READER_TEST_IMAGE, else the addon-sync test image, whose
 * static busybox has httpd on the PATH.
 */
export async function backupReaderTestImage (): Promise<string> {
  const fromEnv = process.env.BACKUP_READER_TEST_IMAGE
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : await gitSyncTestImage()
}
